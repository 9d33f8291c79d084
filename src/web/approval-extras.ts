/**
 * Parts of the approval page (./approval-page.ts) for what goes out besides the post itself: the first
 * comment of publish_post, schedule_post and schedule_posts (shown in full, with the destinations that take
 * no comment), and the published copies delete_post with `remove_from_networks` takes down (each with what
 * happens to it). Every value is escaped (./html.ts).
 */
import { COMMENT_RULES } from "../providers/social/published-rules.ts";
import { NETWORK_RULES } from "../providers/social/rules.ts";
import type { Network } from "../providers/social/types.ts";
import type { ApprovalDescription } from "../tool-contract.ts";
import { html, type RawHtml, stackTable } from "./html.ts";

const label = (network: string) => NETWORK_RULES[network as Network]?.label ?? network;

/**
 * The first comment the approval binds, in full, and the destinations whose network takes none. `id`
 * prefixes the element ids (an item of schedule_posts has its own); `heading` is h2 or h3.
 */
export function firstCommentSection(
  description: ApprovalDescription | undefined,
  id = "",
  heading: "h2" | "h3" = "h2",
): RawHtml | "" {
  const text = description?.content?.first_comment;
  if (!text) return "";
  const without = [
    ...new Set(
      (description?.content?.destinations ?? [])
        .filter((d) => COMMENT_RULES[d.network] === null)
        .map((d) => label(d.network)),
    ),
  ];
  const title =
    heading === "h3"
      ? html`<h3 id="${id}first-comment-title">First comment</h3>`
      : html`<h2 id="${id}first-comment-title">First comment</h2>`;
  return html`<section aria-labelledby="${id}first-comment-title">${title}<pre class="caption" id="${id}first-comment">${text}</pre><p class="muted">Posted under the post once it is live.${without.length > 0 ? html` <span id="${id}first-comment-unsupported">Not on ${without.join(", ")}: no API for comments there.</span>` : ""}</p></section>`;
}

/** The published copies delete_post takes down, and what happens to each. */
export function removalsSection(description: ApprovalDescription | undefined): RawHtml | "" {
  const removals = description?.removals;
  if (!removals) return "";
  const none = html`<span class="muted">—</span>`;
  return html`<section aria-labelledby="removals-title"><h2 id="removals-title">Published copies</h2>${
    removals.length === 0
      ? html`<p id="removals">The post has no published copies.</p>`
      : stackTable(
          ["Network", "Account", "Post", "What happens"],
          removals.map((r) => [
            html`${label(r.network)}`,
            html`${r.account}${r.handle ? html` <span class="muted">@${r.handle.replace(/^@/, "")}</span>` : ""}`,
            r.post_url
              ? html`<a href="${r.post_url}" rel="noopener noreferrer nofollow">${r.post_url}</a>`
              : none,
            r.action === "remove"
              ? html`<span data-action="remove">Deleted from ${label(r.network)}</span>`
              : html`<span data-action="stays_live" class="warn">Stays live: this service cannot delete it on ${label(r.network)}; remove it by hand</span>`,
          ]),
          { id: "removals" },
        )
  }</section>`;
}
