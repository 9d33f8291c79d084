/**
 * HTML of the TikTok review pages (/review; service spec 1.11; networks.md 2.1 "Required UX for the Direct
 * Post audit"): the queue, the review form of one post, and the delivery status after Publish. Every value is
 * escaped (./html.ts). The form works without JavaScript (the server validates everything); the small script
 * (./review-script.ts) only enables and disables controls as the user chooses.
 */
import type { PickablePost, TikTokAccount, WaitingDelivery } from "../domain/social/review.ts";
import type { DeliveryView } from "../domain/social/deliveries.ts";
import type { CreatorInfo } from "../providers/social/tiktok/creator-info.ts";
import {
  BRANDED_NOT_PRIVATE,
  disclosureLabel,
  PRIVACY_LABELS,
  type ReviewChoice,
  type ReviewProblem,
  TITLE_MAX_PHOTO,
  TITLE_MAX_VIDEO,
  DESCRIPTION_MAX_PHOTO,
} from "../providers/social/tiktok/options.ts";
import { html, page, type RawHtml } from "./html.ts";

export const MUSIC_USAGE_URL = "https://www.tiktok.com/legal/page/global/music-usage-confirmation/en";
export const BRANDED_POLICY_URL = "https://www.tiktok.com/legal/page/global/bc-policy/en";

/** The declaration shown next to Publish (and stored with the consent). */
export function declarationText(branded: boolean): string {
  return branded
    ? "By posting, you agree to TikTok's Branded Content Policy and Music Usage Confirmation."
    : "By posting, you agree to TikTok's Music Usage Confirmation.";
}

const q = (workspaceId: string) => `workspace_id=${encodeURIComponent(workspaceId)}`;

/**
 * The queue: deliveries waiting for TikTok, and per TikTok account the posts to pick for it (approved posts
 * and posts published on other networks that the account does not have yet).
 */
export function renderQueue(model: {
  workspaceId: string;
  waiting: WaitingDelivery[];
  accounts: Array<{ account: TikTokAccount; posts: PickablePost[] }>;
}): string {
  const waiting =
    model.waiting.length === 0
      ? html`<p class="muted">Nothing is waiting for TikTok.</p>`
      : html`<ul>${model.waiting.map(
          (w) =>
            html`<li><a href="/review/posts/${w.postId}?delivery_id=${w.deliveryId}&${q(model.workspaceId)}">${w.label}</a> <span class="muted">(${w.postType}, for @${w.handle ?? "account"})</span></li>`,
        )}</ul>`;
  const pick =
    model.accounts.length === 0
      ? html`<p class="muted">No TikTok account is connected. Connect one on <a href="/settings/social">/settings/social</a>.</p>`
      : model.accounts.map(
          ({ account, posts }) =>
            html`<section class="pick" data-account="${account.id}"><h3>For @${account.handle ?? account.displayName}</h3>${
              posts.length === 0
                ? html`<p class="muted">No approved or published post is waiting for this account.</p>`
                : html`<ul>${posts.map(
                    (p) =>
                      html`<li><a href="/review/posts/${p.postId}?account_id=${account.id}&${q(model.workspaceId)}">${p.label}</a> <span class="muted">(${p.postType}${p.publishedOn.length > 0 ? `, published on ${p.publishedOn.join(", ")}` : ", approved"})</span></li>`,
                  )}</ul>`
            }</section>`,
        );
  return page(
    "Review for TikTok",
    html`<h1>Review for TikTok</h1>
<p>TikTok posts are published only from this page, with the creator's options and your consent for each post.</p>
<h2>Waiting for TikTok</h2>${waiting}
<h2>Pick a post</h2>
<p class="muted">Approved posts, and posts already published on other networks, that a TikTok account does not have yet.</p>${pick}`,
    { current: "/review" },
  );
}

export type CreatorState =
  | { state: "ok"; info: CreatorInfo; sandbox: boolean }
  | { state: "cannot_post"; reason: string }
  | { state: "unavailable"; reason: string }
  | { state: "no_account" };

export interface ReviewFormModel {
  csrfToken: string;
  workspaceId: string;
  post: { id: string; type: string; label: string };
  media: Array<{ assetId: string; kind: "image" | "video" }>;
  kind: "video" | "photo";
  durationSeconds: number | undefined;
  deliveryId: string | null;
  /** The content fingerprint of what the page shows (src/domain/social/review.ts `reviewFingerprint`). */
  fingerprint: string;
  accounts: TikTokAccount[];
  accountId: string | undefined;
  creator: CreatorState;
  choice: ReviewChoice;
  problems: ReviewProblem[];
}

/**
 * The empty choice: nothing selected, every toggle off (the audit's defaults). The text starts from the post:
 * a video's caption; a photo post's title is the caption's first 90 characters and its description the caption.
 */
export function emptyChoice(caption: string, kind: "video" | "photo"): ReviewChoice {
  const title = kind === "photo" ? [...caption].slice(0, TITLE_MAX_PHOTO).join("") : caption;
  return {
    privacyLevel: undefined,
    allowComment: false,
    allowDuet: false,
    allowStitch: false,
    disclose: false,
    yourBrand: false,
    brandedContent: false,
    title,
    description: kind === "photo" ? caption : "",
    consent: false,
  };
}

function preview(model: ReviewFormModel): RawHtml {
  const items = model.media.map((m, i) =>
    m.kind === "video"
      ? html`<video controls preload="metadata" width="270" src="/media/${m.assetId}/file"></video>`
      : html`<figure><img alt="Slide ${i + 1} of ${model.media.length}" width="180" src="/media/${m.assetId}/file"></figure>`,
  );
  return html`<section id="preview" aria-label="Preview"><h2>Preview</h2><div class="slides">${items}</div></section>`;
}

function accountPicker(model: ReviewFormModel): RawHtml {
  if (model.accounts.length === 0) {
    return html`<p class="warn">No TikTok account is connected. <a href="/settings/social">Connect one</a> first.</p>`;
  }
  const options = model.accounts.map(
    (a) =>
      html`<option value="${a.id}"${a.id === model.accountId ? html` selected` : ""}>@${a.handle ?? a.displayName}${a.mode === "sandbox" ? " (Sandbox)" : ""}${a.status !== "connected" ? " (needs reconnect)" : ""}</option>`,
  );
  return html`<form method="get" action="/review/posts/${model.post.id}" id="account-form" class="filters">
<input type="hidden" name="workspace_id" value="${model.workspaceId}">${model.deliveryId ? html`<input type="hidden" name="delivery_id" value="${model.deliveryId}">` : ""}
<label>TikTok account <select name="account_id">${options}</select></label><button type="submit" class="secondary">Use this account</button></form>`;
}

function problemFor(model: ReviewFormModel, field: string): RawHtml {
  const p = model.problems.filter((x) => x.field === field);
  return p.length
    ? html`<p class="error" data-problem="${field}">${p.map((x) => x.message).join(" ")}</p>`
    : html``;
}

function check(name: string, label: string, checked: boolean, disabled: string | undefined): RawHtml {
  return html`<label><input type="checkbox" name="${name}" id="${name}" value="on"${checked && !disabled ? html` checked` : ""}${disabled ? html` disabled` : ""}> ${label}${disabled ? html` <span class="muted">(${disabled})</span>` : ""}</label>`;
}

function form(model: ReviewFormModel, info: CreatorInfo, sandbox: boolean): RawHtml {
  const c = model.choice;
  const branded = c.disclose && c.brandedContent;
  const ownBrand = c.disclose && c.yourBrand;
  const privacy = info.privacyLevelOptions.map((p) => {
    const disabled = p === "SELF_ONLY" && branded;
    const checked = c.privacyLevel === p && !disabled;
    return html`<label><input type="radio" name="privacy_level" id="privacy-${p}" value="${p}"${checked ? html` checked` : ""}${disabled ? html` disabled` : ""}> ${PRIVACY_LABELS[p] ?? p}</label>`;
  });
  const byCreator = "turned off in the creator's TikTok settings";
  const interactions =
    model.kind === "photo"
      ? [
          check(
            "allow_comment",
            "Allow comments",
            c.allowComment,
            info.commentDisabled ? byCreator : undefined,
          ),
        ]
      : [
          check(
            "allow_comment",
            "Allow comments",
            c.allowComment,
            info.commentDisabled ? byCreator : undefined,
          ),
          check("allow_duet", "Allow Duet", c.allowDuet, info.duetDisabled ? byCreator : undefined),
          check("allow_stitch", "Allow Stitch", c.allowStitch, info.stitchDisabled ? byCreator : undefined),
        ];
  const notice = disclosureLabel(model.kind, ownBrand, branded);
  const titleMax = model.kind === "photo" ? TITLE_MAX_PHOTO : TITLE_MAX_VIDEO;
  return html`<form method="post" action="/review/posts/${model.post.id}" id="review-form" data-kind="${model.kind}">
<input type="hidden" name="csrf_token" value="${model.csrfToken}">
<input type="hidden" name="workspace_id" value="${model.workspaceId}">
<input type="hidden" name="account_id" value="${model.accountId}">
<input type="hidden" name="content_fingerprint" value="${model.fingerprint}">
${model.deliveryId ? html`<input type="hidden" name="delivery_id" value="${model.deliveryId}">` : ""}
<p id="creator">Posting as <strong id="creator-nickname">${info.nickname}</strong>${info.username ? html` (@${info.username})` : ""}${sandbox ? html` <span class="warn">Sandbox</span>` : ""}</p>
<label>${model.kind === "photo" ? "Title" : "Caption"} <textarea name="title" id="title" rows="3" cols="50" maxlength="${titleMax}">${c.title}</textarea></label>${problemFor(model, "title")}
${model.kind === "photo" ? html`<label>Description <textarea name="description" id="description" rows="4" cols="50" maxlength="${DESCRIPTION_MAX_PHOTO}">${c.description ?? ""}</textarea></label>${problemFor(model, "description")}` : ""}
<fieldset id="privacy"><legend>Who can view this post</legend>${privacy}
<p class="muted" id="branded-private-note"${branded ? "" : html` hidden`}>${BRANDED_NOT_PRIVATE}</p></fieldset>${problemFor(model, "privacy_level")}
<fieldset id="interactions"><legend>Allow users to</legend>${interactions}</fieldset>${problemFor(model, "allow_comment")}${problemFor(model, "allow_duet")}${problemFor(model, "allow_stitch")}
<fieldset id="disclosure"><legend>Disclose commercial content</legend>
${check("disclose", "This post promotes a brand, product or service", c.disclose, undefined)}
<div id="disclosure-options">
${check("your_brand", "Your brand (you are promoting yourself or your own business)", c.yourBrand, undefined)}
${check("branded_content", "Branded content (you are promoting another brand or a third party)", c.brandedContent, undefined)}
<p id="label-notice" class="muted">${notice ?? ""}</p></div></fieldset>${problemFor(model, "disclose")}
<p id="declaration-plain"${branded ? html` hidden` : ""}>By posting, you agree to TikTok's <a href="${MUSIC_USAGE_URL}" rel="noopener noreferrer">Music Usage Confirmation</a>.</p>
<p id="declaration-branded"${branded ? "" : html` hidden`}>By posting, you agree to TikTok's <a href="${BRANDED_POLICY_URL}" rel="noopener noreferrer">Branded Content Policy</a> and <a href="${MUSIC_USAGE_URL}" rel="noopener noreferrer">Music Usage Confirmation</a>.</p>
${check("consent", "I have reviewed this post and agree to publish it to TikTok", c.consent, undefined)}${problemFor(model, "consent")}
<button type="submit" id="publish">Publish to TikTok</button>
<p class="muted">After you publish, TikTok may take a few minutes to process the post before it appears on the profile.</p>
</form>`;
}

/** The review form of one post. */
export function renderReviewForm(model: ReviewFormModel): string {
  let body: RawHtml;
  const tooLong = model.problems.find((p) => p.field === "video");
  const general = model.problems.find((p) => p.field === "general");
  if (model.creator.state === "no_account") body = html``;
  else if (model.creator.state === "cannot_post") {
    body = html`<p class="warn" id="cannot-post">${model.creator.reason}</p>`;
  } else if (model.creator.state === "unavailable") {
    body = html`<p class="warn" id="creator-unavailable">${model.creator.reason}</p>`;
  } else if (tooLong) {
    body = html`<p class="creator">Posting as <strong id="creator-nickname">${model.creator.info.nickname}</strong></p><p class="warn" id="too-long">${tooLong.message}</p>`;
  } else {
    body = form(model, model.creator.info, model.creator.sandbox);
  }
  return page(
    "Review for TikTok",
    html`<h1>Review for TikTok</h1><p><a href="/review?${q(model.workspaceId)}">All posts waiting for TikTok</a></p>
<p><strong>${model.post.label}</strong> <span class="muted">(${model.post.type})</span></p>
${general ? html`<p class="error" id="general-problem">${general.message}</p>` : ""}
${preview(model)}${accountPicker(model)}${body}
<script src="/review/review.js"></script>`,
    { current: "/review" },
  );
}

const STATE_WORDS: Record<string, string> = {
  pending: "Queued",
  uploading: "Uploading to TikTok",
  processing: "TikTok is processing the post",
  outcome_unknown: "Checking with TikTok",
  published: "Published",
  failed: "Failed",
  needs_review: "Waiting for review",
};

/**
 * The delivery after Publish. While the delivery is on its way the page's script (./review-script.ts)
 * fetches the page every 3 seconds and replaces the `#delivery-live` region (announced politely to screen
 * readers); nothing reloads the page (no timed refresh, WCAG 2.2.1).
 */
export function renderStatus(model: { workspaceId: string; delivery: DeliveryView }): string {
  const d = model.delivery;
  const active = !["published", "failed", "needs_review"].includes(d.status);
  const body = html`<h1>Sent to TikTok</h1>
<p>Processing can take a few minutes before the post appears on the TikTok profile.</p>
<div id="delivery-live" aria-live="polite" data-active="${active ? "true" : "false"}">
<p>State: <strong id="delivery-state" data-state="${d.status}" class="badge" data-tone="${d.status === "published" ? "ok" : d.status === "failed" ? "bad" : "wait"}">${STATE_WORDS[d.status] ?? d.status}</strong> <span class="muted">(${d.status})</span></p>
${d.post_url ? html`<p>${d.post_url_kind === "profile" ? "TikTok has not given a link to the post itself (a private post, or one still in moderation); your profile" : "Post"}: <a id="post-url" data-kind="${d.post_url_kind ?? "post"}" href="${d.post_url}" rel="noopener noreferrer">${d.post_url}</a></p>` : ""}
${d.reason && d.status !== "published" ? html`<p class="${d.status === "failed" ? "error" : "muted"}" id="reason">${d.reason}</p>` : ""}
${active ? html`<noscript><p>Reload this page to see the latest state.</p></noscript>` : ""}
</div>
<p><a href="/review?${q(model.workspaceId)}">Back to the posts waiting for TikTok</a></p>
<script src="/review/review.js"></script>`;
  return page("Sent to TikTok", body, { current: "/review" });
}
