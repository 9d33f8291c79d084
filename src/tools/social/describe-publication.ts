/** The approval-page description shared by publish_post and schedule_post (service spec 4.4). */
import { type PreparedPublication, postLabel } from "../../domain/social/publish.ts";
import type { ApprovalDescription } from "../../tool-contract.ts";

const NETWORK_NAMES: Record<string, string> = {
  instagram: "Instagram",
  tiktok: "TikTok",
  facebook: "Facebook",
  youtube: "YouTube",
  linkedin: "LinkedIn",
  pinterest: "Pinterest",
  x: "X",
};

/**
 * Builds the summary, the post as resource, the accounts as destinations, every picture of the post, the
 * full caption, the time (`when`, set for schedules) and the post's version (a later change makes the
 * request stale).
 */
export function describePublication(p: PreparedPublication, when?: Date): ApprovalDescription {
  const label = postLabel(p.post);
  const where = p.accounts
    .map((a) => `${a.display_name} (${NETWORK_NAMES[a.network] ?? a.network})`)
    .join(", ");
  const summary = when
    ? `Schedule the ${p.post.type} post “${label}” for ${when.toISOString()} to ${where}.`
    : `Publish the ${p.post.type} post “${label}” now to ${where}.`;
  return {
    summary,
    resources: [{ kind: "post", id: p.post.id, label }],
    destinations: p.accounts.map((a) => ({ name: a.display_name, network: a.network })),
    images: (p.post.media_asset_ids ?? []).map((id, i, all) => ({
      asset_id: id,
      label: all.length > 1 ? `Slide ${i + 1}/${all.length}` : `Picture of the ${p.post.type} post`,
    })),
    text: p.post.caption ?? undefined,
    when: when ? when.toISOString() : "now, as soon as it is approved",
    versions: p.post.updated_at
      ? [{ table: "posts", id: p.post.id, updated_at: new Date(p.post.updated_at).toISOString() }]
      : undefined,
    media: p.media,
  };
}
