/**
 * The consent page of `GET /mcp/oauth/authorize`: names the client (marked unverified,
 * with the host it will redirect to), lists the requested scopes in plain words (src/scopes.ts), offers
 * exactly one workspace choice (radio group `workspace_id`), carries the request as hidden inputs plus the
 * one-time `consent_nonce` and `csrf_token`, and posts `decision` = `approve` or `deny`.
 */
import { SCOPES, type Scope } from "../scopes.ts";
import { html, page, type RawHtml } from "./html.ts";

export interface ConsentView {
  clientName: string | null;
  clientId: string;
  redirectUri: string;
  scopes: Scope[];
  workspaces: Array<{ id: string; name: string }>;
  /** Hidden inputs, name -> value (the authorization request, nonce and CSRF token). */
  hidden: Record<string, string>;
  /** Email of the signed-in user. */
  userEmail: string;
}

/** Renders the consent page. Every value is escaped (client names are attacker-chosen). */
export function consentPage(view: ConsentView): string {
  const name = view.clientName?.trim() || "An unnamed application";
  const host = new URL(view.redirectUri).host;
  const hidden: RawHtml[] = Object.entries(view.hidden).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  );
  const workspaces = view.workspaces.map(
    (w, i) =>
      html`<label><input type="radio" name="workspace_id" value="${w.id}" required${i === 0 && view.workspaces.length === 1 ? html` checked` : ""}> ${w.name}</label>`,
  );
  return page(
    "Connect an application",
    html`<div class="centered"><h1>Connect “${name}”?</h1>
<p class="warn"><strong>Unverified application.</strong> The name “${name}” was chosen by the application itself
and has not been checked. After you decide, you will be sent to <strong>${host}</strong>.</p>
<p class="muted">Signed in as ${view.userEmail}.</p>
<form method="post" action="/mcp/oauth/authorize">
${hidden}
<h2>It will be able to</h2>
<ul>${view.scopes.map((s) => html`<li>${SCOPES[s]} <span class="muted">(${s})</span></li>`)}</ul>
<fieldset><legend>Workspace it may use (exactly one)</legend>${workspaces}</fieldset>
<p class="muted">You can revoke this connection at any time under Connections.</p>
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button>
</div>
</form></div>`,
  );
}

/** An error page of the authorization flow (used before the redirect URI is trusted): never redirects. */
export function authorizeErrorPage(message: string): string {
  return page(
    "Authorization error",
    html`<div class="centered"><h1>This authorization request cannot be completed</h1><p class="error">${message}</p>
<p>Return to the application and start connecting again.</p></div>`,
  );
}
