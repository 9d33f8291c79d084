/**
 * MCP settings page (service spec 2.1, 4.4): `GET /settings/integrations/mcp`
 * lists the user's connections (client, workspace, scopes in plain words, created, last used) and, per
 * connection, its pending approval requests and its recent requests with their states, each linking to its
 * request page (src/operations/requests.ts `listRequestsForUser`); `POST
 * /settings/integrations/mcp/connections/{uuid}/revoke` (session + CSRF) revokes one. A connection of
 * another user is "not found". Every value on the page is escaped (src/web/html.ts).
 *
 * Which connections are listed: src/domain/account/connections.ts (a grant whose code is still redeemable is
 * shown at once, so the user can revoke it). Revoked connections appear only under "Requests", when they
 * made some.
 */
import { isUuid } from "../ids.ts";
import express, { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { rateLimit } from "../runtime/rate-limit.ts";
import { revokeGrant } from "../oauth/grants.ts";
import { type ConnectionRequests, listRequestsForUser, type RequestSummary } from "../operations/requests.ts";
import { grantOfUser, listConnections } from "../domain/account/connections.ts";
import { userEmail } from "../domain/account/overview.ts";
import type { OperationState } from "../domain/operations/store.ts";
import { isScope, SCOPES } from "../scopes.ts";
import { html, page, type RawHtml, stackTable } from "./html.ts";
import { pageHeaders } from "./security.ts";
import { type BrowserSession, requireCsrf, requireSession } from "./session.ts";

export const SETTINGS_PATH = "/settings/integrations/mcp";

function when(d: Date | string | null): string {
  return d ? new Date(d).toISOString().replace("T", " ").slice(0, 16) + " UTC" : "never";
}

/** Short words for a request's state (service spec 3.1); the state code is shown beside them. */
const STATE_WORDS: Record<OperationState, string> = {
  approval_required: "Waiting for your approval",
  approved: "Approved",
  queued: "Approved, queued",
  running: "Running",
  succeeded: "Done",
  failed: "Failed",
  dispatch_failed: "Queued again soon",
  denied: "Declined or expired",
  outcome_unknown: "Outcome unknown: check your records",
};

/** The badge tone of a request's state (./assets/app.css `.badge[data-tone]`). */
const STATE_TONES: Record<OperationState, "ok" | "wait" | "bad" | "off"> = {
  approval_required: "wait",
  approved: "wait",
  queued: "wait",
  running: "wait",
  succeeded: "ok",
  failed: "bad",
  dispatch_failed: "wait",
  denied: "off",
  outcome_unknown: "bad",
};

function stateCell(r: RequestSummary, now: Date): RawHtml {
  const expired = r.state === "approval_required" && (r.approval_expires_at?.getTime() ?? 0) <= now.getTime();
  const words = expired ? "Expired" : STATE_WORDS[r.state];
  return html`<span class="state badge" data-state="${r.state}" data-tone="${expired ? "off" : STATE_TONES[r.state]}">${words}</span> <span class="muted">(${r.state}${r.error_code ? html`, ${r.error_code}` : ""})</span>`;
}

function requestsBlock(group: ConnectionRequests | undefined, now: Date): RawHtml {
  if (!group || (group.pending.length === 0 && group.recent.length === 0))
    return html`<p class="muted">No requests from this connection yet.</p>`;
  const link = (r: RequestSummary) =>
    html`<a href="${SETTINGS_PATH}/requests/${r.operation_id}">${r.title}</a>`;
  const pending = group.pending.map(
    (r) => html`<li data-operation-id="${r.operation_id}">${link(r)}${r.summary ? html`: ${r.summary}` : ""}
<span class="muted">(requested ${when(r.created_at)}, expires ${when(r.approval_expires_at)})</span></li>`,
  );
  const recent = group.recent.map((r) => ({
    attrs: { "data-operation-id": r.operation_id },
    cells: [
      link(r),
      html`${r.summary ?? ""}`,
      stateCell(r, now),
      html`${when(r.created_at)}`,
      html`${when(r.updated_at)}`,
    ],
  }));
  return html`${
    pending.length > 0
      ? html`<h4>Waiting for your approval</h4><ul class="pending">${pending}</ul>`
      : html`<p class="muted">Nothing waits for your approval.</p>`
  }
${
  recent.length > 0
    ? html`<h4>Recent requests</h4>${stackTable(["Request", "What", "Status", "Requested", "Updated"], recent, { className: "recent" })}`
    : ""
}`;
}

async function settingsPage(ctx: AppContext, session: BrowserSession, notice?: string): Promise<string> {
  const now = ctx.clock.now();
  const [connections, requests, email] = await Promise.all([
    listConnections(ctx.db, session.userId, now),
    listRequestsForUser(ctx, session.userId),
    userEmail(ctx.db, session.userId),
  ]);
  const groups = new Map(requests.map((g) => [g.grant_id, g]));
  const appName = (name: string | null) =>
    html`${name ?? "Unnamed application"} <span class="muted">(unverified)</span>`;
  const rows = connections.map((c) => ({
    attrs: { "data-connection-id": c.id },
    cells: [
      appName(c.client_name),
      html`${c.workspace_name}`,
      html`<ul>${c.scope
        .split(" ")
        .filter(isScope)
        .map((s) => html`<li>${SCOPES[s]}</li>`)}</ul>`,
      html`${when(c.created_at)}`,
      c.connected
        ? html`${when(c.last_used_at)}`
        : html`<span class="muted">Waiting for the application to finish connecting</span>`,
      html`<form method="post" action="${SETTINGS_PATH}/connections/${c.id}/revoke" class="inline">
<input type="hidden" name="csrf_token" value="${session.csrfToken}"><button type="submit" class="secondary">Revoke</button></form>`,
    ],
  }));
  const sections = connections.map(
    (c) => html`<section class="connection-requests" id="requests-${c.id}" data-requests-for="${c.id}">
<h3>${appName(c.client_name)} · ${c.workspace_name} <span class="muted">(connected ${when(c.created_at)})</span></h3>
${requestsBlock(groups.get(c.id), now)}</section>`,
  );
  const live = new Set(connections.map((c) => c.id));
  const former = [...groups.values()]
    .filter((g) => !live.has(g.grant_id))
    .map(
      (
        g,
      ) => html`<section class="connection-requests" id="requests-${g.grant_id}" data-requests-for="${g.grant_id}">
<h3>${appName(g.client_name)} <span class="muted">${g.revoked ? "(revoked)" : "(not connected)"}</span></h3>
${requestsBlock(g, now)}</section>`,
    );
  const waiting = [...groups.values()].reduce((n, g) => n + g.pending.length, 0);
  return page(
    "MCP connections",
    html`<h1>MCP connections</h1>
<p class="muted">Signed in as ${email}. <a href="/logout">Sign out</a></p>
${notice ? html`<p class="ok" role="status">${notice}</p>` : ""}
<p id="pending-count" class="${waiting > 0 ? "warn" : "muted"}">${
      waiting > 0
        ? html`<strong>${waiting} request${waiting === 1 ? "" : "s"} ${waiting === 1 ? "waits" : "wait"} for your approval.</strong> Open a request to approve or decline it.`
        : "No requests wait for your approval."
    }</p>
<h2>Connected applications</h2>
${
  rows.length
    ? stackTable(["Application", "Workspace", "Permissions", "Connected", "Last used", ""], rows, {
        id: "connections",
      })
    : html`<p class="muted">No application is connected.</p>`
}
<h2>Requests</h2>
<p class="muted">What connected assistants asked to do, by connection. Names and summaries come from your own records and are shown as plain text.</p>
${sections.length + former.length > 0 ? html`${sections}${former}` : html`<p class="muted">No requests yet.</p>`}`,
    { current: SETTINGS_PATH },
  );
}

/** The settings router. */
export function settingsRoutes(ctx: AppContext): Router {
  const router = Router();
  const headers = pageHeaders(ctx);
  const limit = rateLimit(ctx, "settings", ctx.config.limits.browser);
  const form = express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 10 });
  const session = requireSession(ctx);

  router.get(SETTINGS_PATH, headers, limit, session, async (req: Request, res: Response) => {
    const notice = req.query.revoked === "1" ? "The connection was revoked." : undefined;
    res.type("html").send(await settingsPage(ctx, res.locals.session as BrowserSession, notice));
  });

  router.post(
    `${SETTINGS_PATH}/connections/:id/revoke`,
    headers,
    limit,
    session,
    form,
    requireCsrf(),
    async (req, res) => {
      const s = res.locals.session as BrowserSession;
      const id = req.params.id;
      const grantId =
        typeof id === "string" && isUuid(id) ? await grantOfUser(ctx.db, s.userId, id) : undefined;
      if (!grantId) {
        res.status(404).type("html").send(page("Not found", html`<p>No such connection.</p>`));
        return;
      }
      await revokeGrant(ctx, grantId, "user");
      res.redirect(303, `${SETTINGS_PATH}?revoked=1`);
    },
  );
  return router;
}
