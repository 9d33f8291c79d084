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

/** Builds the summary, the post as resource and the accounts as destinations. `when` is set for schedules. */
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
    media: p.media,
  };
}
