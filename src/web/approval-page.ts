/**
 * The approval page (service spec 4.4 `GET /settings/integrations/mcp/requests/{uuid}`; docs/social.md
 * "Approved content: what the user approves is what goes out"): the immutable request in plain words: tool,
 * summary, every slide, the full caption with a warning per destination whose limit it exceeds, every
 * destination (network, account, handle, Facebook Page, Pinterest board), the Pinterest link, the time in the
 * owner's time zone and in UTC, the credits the action costs, owned resources by label, expiry, which
 * generated parts the offline local stand-in made (`made_by`), the first comment and the published copies a
 * delete takes down (./approval-extras.ts); and, while it awaits approval, a form whose fields are hidden
 * inputs and whose buttons post `decision` = `approve` or `decline`. Every value is escaped
 * (src/web/html.ts): captions and other retrieved text are inert.
 */
import type { ApprovalDescription } from "../tool-contract.ts";
import { html, page, type RawHtml, stackTable } from "./html.ts";
import { NETWORK_RULES } from "../providers/social/rules.ts";
import type { Network } from "../providers/social/types.ts";
import type { OperationRow, OperationState } from "../domain/operations/store.ts";
import { firstCommentSection, removalsSection } from "./approval-extras.ts";
import { timeInWords } from "../domain/account/time-zone.ts";

export interface ApprovalView {
  op: OperationRow;
  toolTitle: string;
  /** The tool's credit rule from the catalog (shown when the description states no amount). */
  toolCredits?: string | undefined;
  clientName: string | null;
  /** False for clients that registered themselves (dynamic registration): their name is marked unverified. */
  clientVerified: boolean;
  description: ApprovalDescription | undefined;
  csrfToken: string;
  now: Date;
  /** The owner's IANA time zone (users.time_zone); null: times in UTC only. */
  timeZone?: string | null | undefined;
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

/** `at` in the owner's time zone (UTC when none is chosen), named, with its instant as `datetime`. */
function timeIn(at: Date, timeZone: string | null | undefined): RawHtml {
  const zone = timeZone || "UTC";
  return html`<time datetime="${at.toISOString()}">${timeInWords(at, zone)} (${zone})</time>`;
}

/**
 * The time an action takes effect: in the owner's time zone and in UTC, or the description's words. `id`
 * prefixes the element ids (an item of a request for several posts has its own).
 */
function whenCell(when: string, timeZone: string | null | undefined, id = ""): RawHtml {
  const at = /^\d{4}-\d{2}-\d{2}T/.test(when) ? new Date(when) : undefined;
  if (!at || Number.isNaN(at.getTime())) return html`<td id="${id}when">${when}</td>`;
  const utc = `${timeInWords(at, "UTC")} (UTC)`;
  return html`<td id="${id}when"><time datetime="${at.toISOString()}">${
    timeZone
      ? html`<span id="${id}when-local">${timeInWords(at, timeZone)} (${timeZone})</span><br><span id="${id}when-utc">${utc}</span>`
      : html`<span id="${id}when-utc">${utc}</span> <span class="muted">(choose your time zone in <a href="/settings#account">settings</a> to see it in local time)</span>`
  }</time></td>`;
}

const credits = (view: ApprovalView): string => {
  const n = view.description?.credits;
  if (n !== undefined) return n === 0 ? "None: this action costs no credits." : `${n} credits`;
  const rule = view.toolCredits;
  return !rule || rule === "none" ? "None: this action costs no credits." : rule;
};

/**
 * Every destination: network (with how it changes the post: "LinkedIn: document, 6 pages"), account name,
 * handle, Facebook Page, Pinterest board (a table that stacks into labelled rows on phones; "—" where a column
 * does not apply).
 */
function destinationsTable(
  destinations: NonNullable<ApprovalView["description"]>["destinations"],
  id = "",
  heading = "h2",
): RawHtml {
  const none = html`<span class="muted">—</span>`;
  const h =
    heading === "h3"
      ? html`<h3 id="${id}destinations-title">Destinations</h3>`
      : html`<h2 id="${id}destinations-title">Destinations</h2>`;
  return html`<section aria-labelledby="${id}destinations-title">${h}
${stackTable(
  ["Network", "Account", "Handle", "Page", "Board"],
  destinations.map((d) => [
    d.format ? html`${networkLabel(d.network)}: ${d.format}` : html`${networkLabel(d.network)}`,
    html`${d.name}`,
    d.handle ? html`${d.handle}` : none,
    d.network === "facebook" ? html`${d.name}` : none,
    d.network === "pinterest" ? html`${d.board_id ?? "the account's only board"}` : none,
  ]),
  { id: `${id}destinations` },
)}</section>`;
}

const networkLabel = (network: string) => NETWORK_RULES[network as Network]?.label ?? network;

/** The Pinterest link the Pin will carry, as approved (content of a request with a Pinterest destination). */
function pinterestLink(description: ApprovalDescription | undefined, id = ""): RawHtml | "" {
  const pin = description?.content?.destinations.find((d) => d.network === "pinterest");
  if (!pin) return "";
  return html`<p id="${id}pinterest-link">Pinterest link: ${
    pin.link
      ? html`<a href="${pin.link}" rel="noopener noreferrer nofollow">${pin.link}</a>`
      : html`<span class="muted">none (the post's product has no URL)</span>`
  }</p>`;
}

/**
 * One item of a request for several posts (schedule_posts): its summary, slides or pictures, caption,
 * destinations, Pinterest link and time, with element ids prefixed `item-{n}-`.
 */
function itemSection(
  d: ApprovalDescription,
  n: number,
  total: number,
  timeZone: string | null | undefined,
): RawHtml {
  const id = `item-${n}-`;
  const images = d.images ?? [];
  return html`<section class="request-item" id="item-${String(n)}" aria-labelledby="${id}title"><h2 id="${id}title">Post ${String(n)} of ${String(total)}</h2>
<p><strong>${d.summary}</strong></p>
${d.when ? html`<table class="kv"><tr><th scope="row">Time</th>${whenCell(d.when, timeZone, id)}</tr></table>` : ""}
${
  images.length > 0
    ? html`<div class="slides" id="${id}slides">${images.map(
        (im, i) =>
          html`<figure><img src="/media/${im.asset_id}/file" alt="${im.alt ?? im.label}" width="216" loading="lazy" data-position="${String(i + 1)}"><figcaption>${im.label}${im.alt ? html`<br><span class="alt-text">Alt text: ${im.alt}</span>` : ""}</figcaption></figure>`,
      )}</div>`
    : ""
}
${d.text ? html`<h3 id="${id}caption-title">Caption</h3><pre class="caption" id="${id}caption">${d.text}</pre>` : ""}
${firstCommentSection(d, id, "h3")}
${(d.warnings ?? []).length > 0 ? html`<div class="warn" id="${id}warnings"><p>These networks would refuse this post as it is:</p><ul>${(d.warnings ?? []).map((w) => html`<li><strong>${w.destination}</strong> (${w.network})<ul>${w.problems.map((p) => html`<li>${p}</li>`)}</ul></li>`)}</ul></div>` : ""}
${madeBy(d, id)}
${d.destinations.length > 0 ? destinationsTable(d.destinations, id, "h3") : ""}
${pinterestLink(d, id)}
</section>`;
}

/** A video of the post, played from the owner-only file route, with its description when it has one. */
function videoFigure(m: { asset_id: string; description?: string | undefined }, i: number): RawHtml {
  const player = html`<video controls preload="metadata" playsinline width="270" height="480" src="/media/${m.asset_id}/file" title="Video ${i + 1}"></video>`;
  return m.description
    ? html`<figure>${player}<figcaption><span class="alt-text">Video description: ${m.description}</span></figcaption></figure>`
    : player;
}

/** "slides 1, 2 and 4", "the caption", "the video", joined in plain words. */
function partsText(parts: string[]): string {
  const slides = parts.filter((p) => p.startsWith("slide ")).map((p) => p.slice(6));
  const words = [
    ...(slides.length > 0
      ? [
          `${slides.length > 1 ? "slides" : "slide"} ${slides.slice(0, -1).join(", ")}${slides.length > 1 ? " and " : ""}${slides.at(-1)}`,
        ]
      : []),
    ...parts.filter((p) => !p.startsWith("slide ")).map((p) => `the ${p}`),
  ];
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words.at(-1)}` : (words[0] ?? "");
}

/**
 * Who made the generated parts (`made_by`): a warning naming what the offline local stand-in made (its
 * template output, not an AI model's), and a line naming what an AI provider made.
 */
function madeBy(description: ApprovalDescription | undefined, id = ""): RawHtml | "" {
  const parts = description?.made_by ?? [];
  if (parts.length === 0) return "";
  const local = parts.filter((p) => p.provider === "local").map((p) => p.part);
  const ai = parts.filter((p) => p.provider !== "local");
  const providers = [...new Set(ai.map((p) => p.provider))].join(", ");
  return html`${local.length > 0 ? html`<section id="${id}stand-ins" class="warn" aria-label="Made by the local stand-in"><p>Parts of this request were made by the offline local stand-in, not by an AI model: ${partsText(local)}. It writes and draws from templates; check them before you approve.</p></section>` : ""}${ai.length > 0 ? html`<p class="muted" id="${id}made-by-ai">Made by the AI provider (${providers}): ${partsText(ai.map((p) => p.part))}.</p>` : ""}`;
}

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
  const warnings = description?.warnings ?? [];
  const items = description?.items ?? [];
  // Slides and pictures are shown above with their labels; here the videos (and pictures only when no
  // labelled list was given).
  const shownMedia = images.length > 0 ? media.filter((m) => m.kind === "video") : media;
  const body: RawHtml = html`<h1>${open ? "Approve this request?" : "Request"}</h1>
${view.notice ? html`<p class="warn" role="status">${view.notice}</p>` : ""}
<p>An assistant connected as <strong>${view.clientName ?? "an MCP client"}</strong>${view.clientVerified ? "" : html` <span class="muted" id="client-unverified">(unverified: the name was chosen by the application itself)</span>`} asks to:</p>
<p><strong>${description?.summary ?? view.toolTitle}</strong></p>
${
  images.length > 0
    ? html`<section aria-labelledby="slides-title"><h2 id="slides-title">${images.length > 1 ? `All ${images.length} slides` : "Picture"}</h2><div class="slides" id="slides">${images.map(
        (im, i) =>
          html`<figure><img src="/media/${im.asset_id}/file" alt="${im.alt ?? im.label}" width="216" loading="eager" data-position="${String(i + 1)}"><figcaption>${im.label}${im.alt ? html`<br><span class="alt-text">Alt text: ${im.alt}</span>` : ""}</figcaption></figure>`,
      )}</div></section>`
    : ""
}
${description?.text ? html`<section aria-labelledby="caption-title"><h2 id="caption-title">Caption</h2><pre class="caption" id="caption">${description.text}</pre><p class="muted" id="caption-length">${[...description.text].length.toLocaleString("en-US")} characters, shown in full.</p></section>` : ""}
${firstCommentSection(description)}
${madeBy(description)}
${warnings.length > 0 ? html`<section id="warnings" class="warn" aria-labelledby="warnings-title"><h2 id="warnings-title">Warnings</h2><p>These networks would refuse this post as it is:</p><ul>${warnings.map((w) => html`<li><strong>${w.destination}</strong> (${w.network})<ul>${w.problems.map((p) => html`<li>${p}</li>`)}</ul></li>`)}</ul></section>` : ""}
${destinations.length > 0 ? destinationsTable(destinations) : ""}
${removalsSection(description)}
${pinterestLink(description)}
${items.map((d, i) => itemSection(d, i + 1, items.length, view.timeZone))}
${
  settings.length > 0
    ? html`<h2>Settings</h2><table id="settings" class="kv">${settings.map(
        (st) =>
          html`<tr><th scope="row">${st.label}</th><td>${st.old !== undefined && st.old !== st.value ? html`<del>${st.old}</del> → ` : ""}${st.value}</td></tr>`,
      )}</table>`
    : ""
}
<table id="request" class="kv">
<tr><th scope="row">Action</th><td>${view.toolTitle} <span class="muted">(${op.tool})</span></td></tr>
${resources.map((r) => html`<tr><th scope="row">${r.kind}</th><td>${r.label}</td></tr>`)}
${description?.when ? html`<tr><th scope="row">Time</th>${whenCell(description.when, view.timeZone)}</tr>` : ""}
<tr><th scope="row">Credits</th><td id="credits">${credits(view)}</td></tr>
<tr><th scope="row">Requested</th><td>${timeIn(op.created_at, view.timeZone)}</td></tr>
<tr><th scope="row">Expires</th><td id="expires">${expires ? timeIn(expires, view.timeZone) : "never"}${open ? html` <span class="muted">(in ${minutes} minute${minutes === 1 ? "" : "s"})</span>` : ""}</td></tr>
<tr><th scope="row">Status</th><td id="state" data-state="${op.state}">${open || op.state !== "approval_required" ? STATE_TEXT[op.state] : "Expired. Nothing was done."}</td></tr>
</table>
${shownMedia.length > 0 ? html`<div id="media" class="slides">${shownMedia.map((m, i) => (m.kind === "video" ? videoFigure(m, i) : html`<img src="/media/${m.asset_id}/file" alt="Image ${i + 1}" width="216">`))}</div>` : ""}
<p class="muted">Names and captions above come from your own records and are shown as plain text. Only the buttons below, pressed by you, can approve this request. What you approve is what goes out: a later change to the post is refused while it waits to be published.</p>
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
