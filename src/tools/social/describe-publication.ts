/**
 * The approval-page description shared by publish_post, schedule_post and schedule_posts (service spec 4.4).
 * A carousel that is not approved yet is approved by the same request (DESIGN.md section 4: one approval for
 * "approve and schedule"): the summary says so and the page shows every slide.
 */
import type { Knex } from "../../db/knex.ts";
import { madeByParts } from "../../domain/content/made-by.ts";
import { approvedContent, contentFingerprint } from "../../domain/social/content.ts";
import { withFirstComment } from "../../domain/social/first-comment.ts";
import { approvalWarnings, postMedia, postProblems } from "../../domain/social/validate.ts";
import { type PreparedPublication, postLabel } from "../../domain/social/publish.ts";
import { needsCarouselApproval } from "../../domain/social/deliveries.ts";
import { destinationFits } from "../../domain/social/post-fit.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import { timeInWords } from "../../domain/account/time-zone.ts";
import type { ApprovalDescription } from "../../tool-contract.ts";

/**
 * `at` as a person reads it in UTC, e.g. "Tuesday, 1 December 2026 at 09:00 UTC" (the approval page's Time row
 * adds the owner's own time zone).
 */
export function utcWords(at: Date): string {
  return `${timeInWords(at, "UTC")} UTC`;
}

/**
 * Builds the summary, the post as resource, the accounts as destinations (name, network, handle, Pinterest
 * board, how the network changes the post: "document, 6 pages"), every picture of the post with its alt
 * text, a video with its description, the full caption with what each destination would refuse of the post (validate.ts `postProblems`;
 * publish and schedule refuse such a destination at the call, so normally none), the time (`when`, set for
 * schedules), the credits (none), the post's version (a later change makes the request stale) and the
 * content the approval binds with its fingerprint (down to the Pinterest link).
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
  const content = withFirstComment(await approvedContent(db, p.post.id, p.accounts), p.firstComment);
  const slides = content.slide_asset_ids.filter((id): id is string => id !== null);
  const approving = needsCarouselApproval(p.post)
    ? `Approve the ${slides.length}-slide carousel “${label}” and `
    : "";
  const action = when
    ? `${approving ? "schedule" : "Schedule"} the ${p.post.type} post${approving ? "" : ` “${label}”`} for ${utcWords(when)} to ${where}.`
    : `${approving ? "publish" : "Publish"} the ${p.post.type} post${approving ? "" : ` “${label}”`} now to ${where}.`;
  const summary = `${approving}${action}`;
  const pictures = p.post.type === "carousel" && slides.length > 0 ? slides : (p.post.media_asset_ids ?? []);
  const board = (id: string) => content.destinations.find((d) => d.social_account_id === id)?.board_id;
  const alts = new Map(
    (await postMedia(db, { ...p.post, media_asset_ids: p.post.media_asset_ids ?? null })).map((m) => [
      m.assetId,
      m.altText,
    ]),
  );
  // What each network makes of the post: a carousel's slides are its images; a video's description is its
  // alt text (the post's or the asset's).
  const media = p.media.map((m) => {
    const description = m.kind === "video" ? alts.get(m.asset_id) : undefined;
    return description ? { ...m, description } : m;
  });
  const sent =
    pictures === slides
      ? slides.map(() => ({ kind: "image" as const }))
      : media.map((m) => ({ kind: m.kind, altText: alts.get(m.asset_id) ?? null }));
  const fits = await destinationFits(db, p.accounts, sent);
  return {
    summary,
    resources: [{ kind: "post", id: p.post.id, label }],
    destinations: p.accounts.map((a) => ({
      name: a.display_name,
      network: a.network,
      handle: a.handle,
      ...(a.network === "pinterest" ? { board_id: board(a.social_account_id) ?? null } : {}),
      ...(fits.has(a.social_account_id) ? { format: fits.get(a.social_account_id) } : {}),
    })),
    images: pictures.map((id, i, all) => ({
      asset_id: id,
      label: all.length > 1 ? `Slide ${i + 1}/${all.length}` : `Picture of the ${p.post.type} post`,
      ...(alts.get(id) ? { alt: alts.get(id)! } : {}),
    })),
    text: p.post.caption ?? undefined,
    when: when ? when.toISOString() : "now, as soon as it is approved",
    versions: p.post.updated_at
      ? [{ table: "posts", id: p.post.id, updated_at: new Date(p.post.updated_at).toISOString() }]
      : undefined,
    media,
    content,
    fingerprint: contentFingerprint(content),
    credits: 0,
    made_by: await madeByParts(db, p.post),
    warnings: approvalWarnings(
      await postProblems(db, { ...p.post, media_asset_ids: p.post.media_asset_ids ?? null }, p.accounts),
    ),
  };
}
