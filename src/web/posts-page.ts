/**
 * HTML of the posts page (/posts, src/web/posts.ts): the week of schedules, the filters, and each post with
 * its thumbnail, caption start, status, schedules and deliveries per network (account, state, time in the
 * owner's time zone, the post link, the failure reason and what to do), plus the confirmation page of
 * canceling a schedule. Every value is escaped (./html.ts); captions and names are inert text.
 */
import { POST_STATUSES, type PostStatus } from "../domain/content/posts.ts";
import type {
  ActivityDelivery,
  ActivitySchedule,
  PostActivity,
  WeekEntry,
} from "../domain/social/post-activity.ts";
import { NETWORK_RULES } from "../providers/social/rules.ts";
import { NETWORKS, type Network } from "../providers/social/types.ts";
import {
  DELIVERY_STATUS_WORDS,
  networkLabel,
  POST_STATUS_WORDS,
  SCHEDULE_STATUS_WORDS,
  statusBadge,
} from "./badges.ts";
import { html, page, type RawHtml, stackTable } from "./html.ts";
import { type ZonedDay, zonedClock, zonedTime } from "./time.ts";

export const POSTS_PATH = "/posts";

export interface PostsPageModel {
  csrfToken: string;
  workspace: { id: string; name: string };
  workspaces: Array<{ id: string; name: string }>;
  timeZone: string;
  filter: { status?: PostStatus | undefined; network?: Network | undefined };
  posts: PostActivity[];
  nextCursor: string | null;
  week: { days: ZonedDay[]; today: string; entries: WeekEntry[] };
  notice?: { kind: "ok" | "error"; text: string } | undefined;
  /**
   * Enabled automations whose published fields (product link, name, price, destinations) changed since the
   * owner approved them: their runs keep their posts as drafts (src/domain/automations/publish-binding.ts).
   */
  automationsNeedingReview?: Array<{ automation_id: string; name: string; changes: string[] }> | undefined;
}

/** A query string of the page with `params` (empty values dropped). */
function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  return `?${q.toString()}`;
}

/** The first sentence-sized part of a caption: at most 140 characters, on a word boundary. */
export function captionStart(caption: string | null): string {
  const text = (caption ?? "").replace(/\s+/g, " ").trim();
  if (text.length <= 140) return text;
  const cut = text.slice(0, 139);
  const space = cut.lastIndexOf(" ");
  return `${space > 80 ? cut.slice(0, space) : cut}…`;
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * What the owner can do about a delivery that did not publish, in plain words; undefined when there is
 * nothing to do (published, on its way, or canceled on purpose). Decided from the delivery's and its
 * account's states, never from the reason's text.
 */
export function deliveryAdvice(
  d: ActivityDelivery,
  schedule: ActivitySchedule | undefined,
): RawHtml | undefined {
  if (d.status === "published" || schedule?.status === "canceled") return undefined;
  if (d.status === "needs_review")
    return html`Open <a href="/review">TikTok review</a> to choose how it is posted and publish it.`;
  if (d.account.status === "disconnected")
    return html`The account was disconnected. Connect it again on <a href="/settings/social">Social accounts</a>, then ask your assistant to publish the post again.`;
  if (d.account.status !== "connected")
    return html`Reconnect the account on <a href="/settings/social">Social accounts</a>, then ask your assistant to publish the post again.`;
  if (d.status === "outcome_unknown")
    return html`The service is asking the network whether the post was created. Nothing to do yet; do not publish it again meanwhile.`;
  if (d.status === "failed")
    return html`Fix what the reason says, then ask your assistant to publish the post again.`;
  return undefined;
}

function deliveryRows(
  deliveries: ActivityDelivery[],
  schedule: ActivitySchedule | undefined,
  zone: string,
): RawHtml {
  return stackTable(
    ["Network", "Account", "State", "Time", "Post", "What happened"],
    deliveries.map((d) => {
      const waiting = schedule?.status === "scheduled" && d.status === "pending";
      const time = d.published_at ?? (waiting ? null : d.updated_at);
      const at = time ? new Date(time) : undefined;
      const advice = deliveryAdvice(d, schedule);
      return {
        attrs: { "data-delivery-id": d.delivery_id, "data-network": d.network, "data-status": d.status },
        cells: [
          networkLabel(d.network),
          html`${d.account.display_name}${d.account.handle ? html` <span class="muted">@${d.account.handle.replace(/^@/, "")}</span>` : ""}`,
          waiting
            ? statusBadge(SCHEDULE_STATUS_WORDS, "scheduled")
            : statusBadge(DELIVERY_STATUS_WORDS, d.status),
          at
            ? html`${d.published_at ? "Published " : "Updated "}${zonedTime(at, zone)}`
            : html`<span class="muted">At the scheduled time</span>`,
          d.post_url
            ? html`<a href="${d.post_url}" rel="noopener noreferrer" class="post-url" data-kind="${d.post_url_kind ?? "post"}">${d.post_url_kind === "profile" ? "View profile" : "View post"}<span class="visually-hidden"> on ${NETWORK_RULES[d.network]?.label ?? d.network}</span></a>${d.post_url_kind === "profile" ? html` <span class="muted">(no link to the post itself yet)</span>` : ""}`
            : html``,
          d.reason || advice
            ? html`${d.reason ? html`<span class="reason">${sentence(d.reason)}.</span>` : ""}${advice ? html` <span class="advice">${advice}</span>` : ""}`
            : html``,
        ],
      };
    }),
    { className: "deliveries" },
  );
}

/**
 * True when the owner can still cancel something of `s`: it waits for its time, or it is publishing with a
 * delivery that has not started (src/domain/social/schedules.ts `cancelSchedule` decides for good).
 */
export function cancelable(s: ActivitySchedule): boolean {
  return (
    s.status === "scheduled" ||
    (s.status === "publishing" && s.deliveries.some((d) => d.status === "pending"))
  );
}

function scheduleBlock(p: PostActivity, s: ActivitySchedule, model: PostsPageModel): RawHtml {
  const cancel = cancelable(s)
    ? html`<a href="${POSTS_PATH}/schedules/${s.schedule_id}/cancel${query({ workspace_id: model.workspace.id })}" role="button" class="secondary outline cancel-schedule">Cancel this schedule<span class="visually-hidden"> of ${p.label}</span></a>`
    : "";
  return html`<div class="schedule" data-schedule-id="${s.schedule_id}" data-status="${s.status}">
<h4>Scheduled for ${zonedTime(s.scheduled_for, model.timeZone)} ${statusBadge(SCHEDULE_STATUS_WORDS, s.status)}</h4>
${s.status === "canceled" && s.status_reason ? html`<p class="muted">${sentence(s.status_reason)}.</p>` : ""}
${s.deliveries.length > 0 ? deliveryRows(s.deliveries, s, model.timeZone) : ""}
${cancel}</div>`;
}

function thumbnail(p: PostActivity): RawHtml {
  return p.thumbnail_asset_id
    ? html`<img class="thumb" src="/media/${p.thumbnail_asset_id}/file" alt="" width="96" height="96">`
    : html`<span class="thumb text" aria-hidden="true">${p.type === "video" ? "▶" : "Aa"}</span>`;
}

function postBlock(p: PostActivity, model: PostsPageModel): RawHtml {
  const start = captionStart(p.caption);
  const nothing = p.schedules.length === 0 && p.deliveries.length === 0;
  return html`<article class="post" id="post-${p.post_id}" data-post-id="${p.post_id}" data-status="${p.status}">
${thumbnail(p)}
<div class="post-head"><h3>${p.title ?? p.label}</h3>
<p class="muted">${p.type} post · ${statusBadge(POST_STATUS_WORDS, p.status)} · created ${zonedTime(p.created_at, model.timeZone)}</p></div>
<div class="post-body">
${start ? html`<p class="caption-start">${start}</p>` : ""}
${p.schedules.map((s) => scheduleBlock(p, s, model))}
${p.deliveries.length > 0 ? html`<div class="published-now"><h4>Published without a schedule</h4>${deliveryRows(p.deliveries, undefined, model.timeZone)}</div>` : ""}
${nothing ? html`<p class="muted">Not published or scheduled yet. Ask your assistant to publish or schedule it.</p>` : ""}
</div></article>`;
}

function weekView(model: PostsPageModel): RawHtml {
  const { days, today, entries } = model.week;
  const first = days[0]!;
  const last = days[days.length - 1]!;
  const shift = (n: number) => {
    const d = new Date(`${first.date}T12:00:00Z`);
    d.setUTCDate(d.getUTCDate() + n);
    return d.toISOString().slice(0, 10);
  };
  const link = (week: string) =>
    `${POSTS_PATH}${query({ workspace_id: model.workspace.id, status: model.filter.status, network: model.filter.network, week })}#week`;
  const items = days.map((day) => {
    const mine = entries.filter((e) => e.scheduled_for >= day.start && e.scheduled_for < day.end);
    const classes = [day.date === today ? "today" : "", mine.length === 0 ? "empty" : ""].filter(Boolean);
    return html`<li${classes.length > 0 ? html` class="${classes.join(" ")}"` : ""}${day.date === today ? html` aria-current="date"` : ""} data-date="${day.date}"><h3>${day.label}</h3>${
      mine.length === 0
        ? html`<p class="muted">Nothing scheduled</p>`
        : html`<ul>${mine.map(
            (e) =>
              html`<li data-schedule-id="${e.schedule_id}"><strong>${zonedClock(e.scheduled_for, model.timeZone)}</strong> <a href="#post-${e.post_id}">${e.post_label}</a><br>${e.networks.map((n) => html`${networkLabel(n)} `)}${statusBadge(SCHEDULE_STATUS_WORDS, e.status)}</li>`,
          )}</ul>`
    }</li>`;
  });
  return html`<section id="week" aria-labelledby="week-title">
<h2 id="week-title">Week of ${first.label} to ${last.label}</h2>
<nav class="actions" aria-label="Weeks"><a href="${link(shift(-7))}">← Previous week</a><a href="${link(today)}">This week</a><a href="${link(shift(7))}">Next week →</a></nav>
${entries.length === 0 ? html`<p class="muted" id="week-empty">Nothing is scheduled this week.</p>` : ""}
<ol class="week${entries.length === 0 ? " quiet" : ""}">${items}</ol></section>`;
}

function filters(model: PostsPageModel): RawHtml {
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? html` selected` : ""}>${label}</option>`;
  return html`<form method="get" action="${POSTS_PATH}" class="filters" id="filters">
${
  model.workspaces.length > 1
    ? html`<label>Workspace <select name="workspace_id">${model.workspaces.map((w) => option(w.id, w.name, w.id === model.workspace.id))}</select></label>`
    : html`<input type="hidden" name="workspace_id" value="${model.workspace.id}">`
}
<label>Status <select name="status">${option("", "Any status", !model.filter.status)}${POST_STATUSES.map((s) => option(s, POST_STATUS_WORDS[s]![0], s === model.filter.status))}</select></label>
<label>Network <select name="network">${option("", "Any network", !model.filter.network)}${NETWORKS.map((n) => option(n, NETWORK_RULES[n].label, n === model.filter.network))}</select></label>
<button type="submit">Show</button>
</form>`;
}

/** Renders /posts. */
export function renderPostsPage(model: PostsPageModel): string {
  const filtered = Boolean(model.filter.status || model.filter.network);
  const more = model.nextCursor
    ? html`<p><a href="${POSTS_PATH}${query({ workspace_id: model.workspace.id, status: model.filter.status, network: model.filter.network, cursor: model.nextCursor })}" rel="next">Older posts →</a></p>`
    : "";
  const body = html`<h1>Posts</h1>
<p class="muted">Workspace ${model.workspace.name}. Times are in ${model.timeZone} (<a href="/settings#account">change</a>).</p>
${model.notice ? html`<p class="${model.notice.kind}" role="status">${model.notice.text}</p>` : ""}
${reviewNotice(model)}
${weekView(model)}
<section id="posts" aria-labelledby="posts-title">
<h2 id="posts-title">All posts, newest first</h2>
${filters(model)}
${
  model.posts.length === 0
    ? html`<p class="muted" id="no-posts">${filtered ? "No post matches these filters." : "No posts yet. Ask your assistant to create one."}</p>`
    : model.posts.map((p) => postBlock(p, model))
}
${more}
</section>`;
  return page("Posts", body, { current: POSTS_PATH });
}

/**
 * The automations that need the owner's review (`needs_review`): each by name with what changed. Their posts
 * wait as drafts; the owner approves the change on the approval page of a new enable_automation request.
 */
function reviewNotice(model: PostsPageModel): RawHtml | "" {
  const list = model.automationsNeedingReview ?? [];
  if (list.length === 0) return "";
  return html`<section id="automations-review" class="warn" aria-labelledby="automations-review-title"><h2 id="automations-review-title">Automations that need your review</h2>
<p>What these automations publish changed after you approved them. Their runs keep their posts as drafts until you approve the change: ask your assistant to request it (enable_automation), then approve it on the page it gives you.</p>
<ul>${list.map((a) => html`<li data-automation-id="${a.automation_id}" data-review-status="needs_review"><strong>${a.name}</strong> <span class="badge" data-tone="wait">Needs review</span> <span class="reason">${sentence(a.changes.join("; "))}.</span></li>`)}</ul></section>`;
}

/** The confirmation page of canceling one schedule. */
export function renderCancelPage(model: {
  csrfToken: string;
  workspaceId: string;
  timeZone: string;
  post: PostActivity;
  schedule: ActivitySchedule;
}): string {
  const { post, schedule: s } = model;
  const back = `${POSTS_PATH}${query({ workspace_id: model.workspaceId })}#post-${post.post_id}`;
  const destinations = s.deliveries.map(
    (d) =>
      html`<li>${networkLabel(d.network)}: ${d.account.display_name}${d.account.handle ? html` <span class="muted">@${d.account.handle.replace(/^@/, "")}</span>` : ""}</li>`,
  );
  return page(
    "Cancel a schedule",
    html`<div class="centered"><h1>Cancel this schedule?</h1>
<p><strong>${post.title ?? post.label}</strong></p>
<p>Scheduled for ${zonedTime(s.scheduled_for, model.timeZone)}, to:</p>
<ul>${destinations}</ul>
<p>Nothing more is sent to these networks: every delivery that has not started is canceled. The post itself stays; your assistant can schedule it again later (with a new approval).</p>
<form method="post" action="${POSTS_PATH}/schedules/${s.schedule_id}/cancel">
<input type="hidden" name="csrf_token" value="${model.csrfToken}">
<input type="hidden" name="workspace_id" value="${model.workspaceId}">
<div class="actions"><button type="submit" id="confirm-cancel">Cancel the schedule</button><a href="${back}" role="button" class="secondary outline">Keep it</a></div>
</form></div>`,
    { current: POSTS_PATH },
  );
}
