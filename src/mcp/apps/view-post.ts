/**
 * The data of the post view (ui://social-mcp/post): the owner's post with its media as signed URLs, its
 * deliveries (state, link, reason, first comment's status), its first comment, and one preview per destination network from the network-rule table
 * (src/providers/social/rules.ts): the caption cut where the network's limit cuts it (X counts with
 * twitter-text) and every rule the post breaks there.
 */
import type { AppContext } from "../../context.ts";
import { getPost } from "../../domain/content/posts.ts";
import type { Owner } from "../../domain/owner.ts";
import { listDeliveries } from "../../domain/social/deliveries.ts";
import { altTextFit, destinationFormat } from "../../domain/social/post-fit.ts";
import { type PostMedia, postMedia } from "../../domain/social/validate.ts";
import { captionLength, checkNetworkRules } from "../../providers/social/rule-check.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import { isNetwork, NETWORKS, type Network } from "../../providers/social/types.ts";
import type { NetworkPreview, ViewPost } from "../views/common/data.ts";
import type { MediaSigner } from "./view-common.ts";

/** The longest prefix of `caption` (in code points) that `network` accepts, and the rest. */
export function cutCaption(network: Network, caption: string): { kept: string; cut: string } {
  const limit = NETWORK_RULES[network].caption.maxLength;
  const chars = [...caption];
  if (captionLength(network, caption) <= limit) return { kept: caption, cut: "" };
  // The last prefix within the limit, by bisection (weighted lengths grow with the prefix, but for the
  // moment a URL starts being recognised as one).
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (captionLength(network, chars.slice(0, mid).join("")) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return { kept: chars.slice(0, lo).join(""), cut: chars.slice(lo).join("") };
}

/**
 * `network`'s preview of a post with `caption` and `media` (in post order), for an account with the network's
 * default settings (a LinkedIn carousel: a document).
 */
export function networkPreview(
  network: Network,
  caption: string,
  media: readonly PostMedia[],
): NetworkPreview {
  const rules = NETWORK_RULES[network];
  const document = destinationFormat(network, {}, media);
  const format = [document, altTextFit(network, media)].filter((x) => x !== null).join("; ");
  return {
    network,
    label: rules.label,
    caption: {
      counting: rules.caption.counting,
      limit: rules.caption.maxLength,
      length: captionLength(network, caption),
      ...cutCaption(network, caption),
    },
    problems: checkNetworkRules(network, { caption, media }).map((v) => v.message),
    ...(format ? { format } : {}),
    ...(document ? { document_pages: media.length } : {}),
  };
}

/**
 * The owner's post as the views show it, with its media (and their rule data) in post order; its
 * deliveries' failure reasons and scheduled times only when `deliveryDetails` (the token reads schedules).
 */
export async function viewPost(
  ctx: AppContext,
  owner: Owner,
  postId: string,
  signer: MediaSigner,
  deliveryDetails: boolean,
): Promise<{ post: ViewPost; media: PostMedia[] }> {
  const p = await getPost(ctx.db, owner, postId);
  const media = await postMedia(ctx.db, { id: p.post_id, type: p.type, media_asset_ids: p.media_asset_ids });
  const deliveries = await listDeliveries(ctx.db, owner, { post_id: postId, limit: 50 });
  const comment = await ctx
    .db("deliveries")
    .where({ post_id: p.post_id, workspace_id: owner.workspaceId })
    .whereNotNull("first_comment")
    .orderBy("created_at", "desc")
    .first("first_comment");
  return {
    media,
    post: {
      post_id: p.post_id,
      type: p.type,
      status: p.status,
      title: p.title,
      caption: p.caption,
      caption_provider: p.caption_provider,
      media: media.map((m) => ({ ...signer.sign(m), alt_text: m.altText ?? null })),
      media_provider: p.media_provider,
      deliveries: deliveries.items.map((d) => ({
        delivery_id: d.delivery_id,
        network: d.network,
        label: NETWORK_RULES[d.network].label,
        status: d.status,
        post_url: d.post_url,
        reason: deliveryDetails ? d.reason : null,
        scheduled_for: deliveryDetails ? d.scheduled_for : null,
        first_comment: d.first_comment?.status ?? null,
      })),
      first_comment: comment?.first_comment ?? null,
    },
  };
}

/**
 * The networks to preview: those named in `destinations` (an approval's), else those of the post's
 * deliveries, else every network.
 */
export function previewNetworks(destinations: readonly string[], post: ViewPost | null): Network[] {
  const named = destinations.filter(isNetwork);
  const delivered = (post?.deliveries ?? []).map((d) => d.network).filter(isNetwork);
  const chosen = named.length > 0 ? named : delivered.length > 0 ? delivered : [...NETWORKS];
  return NETWORKS.filter((n) => chosen.includes(n));
}
