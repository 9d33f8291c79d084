/**
 * The approval page (service spec 4.4 `GET /settings/integrations/mcp/requests/{uuid}`): the immutable
 * request in plain words (tool, summary, owned resources by label, destinations, expiry) and, while it
 * awaits approval, a form whose fields are hidden inputs and whose buttons post `decision` = `approve` or
 * `decline`. Every value is escaped (src/web/html.ts): captions and other retrieved text are inert.
 */
import type { ApprovalDescription } from "../tool-contract.ts";
import { html, page, type RawHtml } from "./html.ts";
import type { OperationRow, OperationState } from "../domain/operations/store.ts";

export interface ApprovalView {
  op: OperationRow;
  toolTitle: string;
  clientName: string | null;
  /** False for clients that registered themselves (dynamic registration): their name is marked unverified. */
  clientVerified: boolean;
  description: ApprovalDescription | undefined;
  csrfToken: string;
  now: Date;
  /** A one-line outcome of the decision just made (after the POST redirect). */
  notice?: string | undefined;
}

const STATE_TEXT: Record<OperationState, string> = {
  approval_required: "Waiting for your decision.",
  approved: "Approved. The action is about to be queued.",
  queued: "Approved and queued. It runs once, in the background.",
  running: "Approved and running now.",
  succeeded: "Approved and done.",
  failed: "Approved, but the action failed.",
  dispatch_failed: "Approved, but it could not be queued yet; it is retried automatically.",
  denied: "Declined or expired. Nothing was done; the assistant must make a new request.",
  outcome_unknown:
    "Approved, but the outcome could not be confirmed. Check your records before asking again.",
};

/** Renders the page for `view`. */
export function renderApprovalPage(view: ApprovalView): string {
  const { op, description, now } = view;
  const expires = op.approval_expires_at;
  const open = op.state === "approval_required" && expires !== null && expires.getTime() > now.getTime();
  const minutes = expires ? Math.max(0, Math.ceil((expires.getTime() - now.getTime()) / 60000)) : 0;
  const resources = description?.resources ?? [];
  const destinations = description?.destinations ?? [];
  const images = description?.images ?? [];
  const settings = description?.settings ?? [];
  const media = description?.media ?? [];
  // Slides and pictures are shown above with their labels; here the videos (and pictures only when no
  // labelled list was given).
  const shownMedia = images.length > 0 ? media.filter((m) => m.kind === "video") : media;
  const body: RawHtml = html`<h1>${open ? "Approve this request?" : "Request"}</h1>
${view.notice ? html`<p class="warn" role="status">${view.notice}</p>` : ""}
<p>An assistant connected as <strong>${view.clientName ?? "an MCP client"}</strong>${view.clientVerified ? "" : html` <span class="muted" id="client-unverified">(unverified: the name was chosen by the application itself)</span>`} asks to:</p>
<p><strong>${description?.summary ?? view.toolTitle}</strong></p>
${
  images.length > 0
    ? html`<div class="slides" id="slides">${images.map(
        (im, i) =>
          html`<figure><img src="/media/${im.asset_id}/file" alt="${im.label}" width="216" loading="eager" data-position="${String(i + 1)}"><figcaption>${im.label}</figcaption></figure>`,
      )}</div>`
    : ""
}
${description?.text ? html`<h2>Caption</h2><pre class="caption" id="caption">${description.text}</pre>` : ""}
${
  settings.length > 0
    ? html`<h2>Settings</h2><table id="settings" class="kv">${settings.map(
        (st) =>
          html`<tr><th scope="row">${st.label}</th><td>${st.old !== undefined && st.old !== st.value ? html`<del>${st.old}</del> → ` : ""}${st.value}</td></tr>`,
      )}</table>`
    : ""
}
<table class="kv">
<tr><th scope="row">Action</th><td>${view.toolTitle} <span class="muted">(${op.tool})</span></td></tr>
${resources.map((r) => html`<tr><th scope="row">${r.kind}</th><td>${r.label}</td></tr>`)}
${destinations.length > 0 ? html`<tr><th scope="row">Destinations</th><td>${destinations.map((d, i) => html`${i > 0 ? ", " : ""}${d.name} (${d.network})`)}</td></tr>` : ""}
${description?.when ? html`<tr><th scope="row">Time</th><td id="when">${description.when}</td></tr>` : ""}
<tr><th scope="row">Requested</th><td>${op.created_at.toISOString()}</td></tr>
<tr><th scope="row">Expires</th><td>${expires ? expires.toISOString() : "never"}${open ? html` <span class="muted">(in ${minutes} minute${minutes === 1 ? "" : "s"})</span>` : ""}</td></tr>
<tr><th scope="row">Status</th><td id="state" data-state="${op.state}">${open || op.state !== "approval_required" ? STATE_TEXT[op.state] : "Expired. Nothing was done."}</td></tr>
</table>
${shownMedia.length > 0 ? html`<div id="media" class="slides">${shownMedia.map((m, i) => (m.kind === "video" ? html`<video controls preload="metadata" playsinline width="270" height="480" src="/media/${m.asset_id}/file" title="Video ${i + 1}"></video>` : html`<img src="/media/${m.asset_id}/file" alt="Image ${i + 1}" width="216">`))}</div>` : ""}
<p class="muted">Names and captions above come from your own records and are shown as plain text. Only the buttons below, pressed by you, can approve this request.</p>
${
  open
    ? html`<form method="post">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline" class="secondary">Decline</button>
</div>
</form>`
    : ""
}
<p><a href="/settings/integrations/mcp">MCP settings</a></p>`;
  return page(open ? "Approve request" : "Request", body, { current: "/settings/integrations/mcp" });
}

/** Text shown after a decision (the POST redirects back to the page with `?result=<kind>`). */
export const DECISION_NOTICES: Record<string, string> = {
  approved: "Approved. The action runs once, in the background.",
  declined: "Declined. Nothing was done.",
  expired: "This request expired before it was approved. Nothing was done.",
  forbidden:
    "The connection is no longer authorized (revoked, or you left the workspace). The request was denied.",
  not_pending: "This request was already decided; it was not approved again.",
  stale:
    "Not approved: the post or automation changed after this request was made (for example a slide was regenerated). Nothing was done; ask the assistant to request approval again.",
};
