/** The approval-page description shared by publish_post and schedule_post (service spec 4.4). */
import type { Knex } from "../../db/knex.ts";
import { approvedContent, contentFingerprint } from "../../domain/social/content.ts";
import { captionWarnings } from "../../domain/social/caption-limits.ts";
import { type PreparedPublication, postLabel } from "../../domain/social/publish.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { ApprovalDescription } from "../../tool-contract.ts";

/**
 * Builds the summary, the post as resource, the accounts as destinations (name, network, handle, Pinterest
 * board), every picture of the post, the full caption with a warning per destination whose caption limit it
 * exceeds, the time (`when`, set for schedules), the credits (none), the post's version (a later change makes
 * the request stale) and the content the approval binds with its fingerprint (down to the Pinterest link).
 */
export async function describePublication(
  db: Knex,
  p: PreparedPublication,
  when?: Date,
): Promise<ApprovalDescription> {
  const label = postLabel(p.post);
  const where = p.accounts
    .map((a) => `${a.display_name} (${NETWORK_RULES[a.network]?.label ?? a.network})`)
    .join(", ");
  const summary = when
    ? `Schedule the ${p.post.type} post “${label}” for ${when.toISOString()} to ${where}.`
    : `Publish the ${p.post.type} post “${label}” now to ${where}.`;
  const content = await approvedContent(db, p.post.id, p.accounts);
  const board = (id: string) => content.destinations.find((d) => d.social_account_id === id)?.board_id;
  return {
    summary,
    resources: [{ kind: "post", id: p.post.id, label }],
    destinations: p.accounts.map((a) => ({
      name: a.display_name,
      network: a.network,
      handle: a.handle,
      ...(a.network === "pinterest" ? { board_id: board(a.social_account_id) ?? null } : {}),
    })),
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
    content,
    fingerprint: contentFingerprint(content),
    credits: 0,
    warnings: captionWarnings(p.post.caption ?? "", p.accounts),
  };
}
