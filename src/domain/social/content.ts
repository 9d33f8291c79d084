/**
 * Approved content (service spec 4.4 "what the user approves is what they saw"): the content a
 * browser approval of publish_post, schedule_post or approve_carousel binds, and its fingerprint.
 *
 * - `PostContent`: what a post publishes: type, title, caption, a carousel's slide images in position order,
 *   the post's media in order and, when any image has one, the alt texts sent with them.
 * - `ApprovedContent`: the post content plus, per destination, the Pinterest link (the product URL, read once,
 *   at the request) and board, and how a LinkedIn post of several images goes out (`linkedin_carousel`: a PDF
 *   document or images, from the account's setting). It is recorded in the approval request's description and
 *   shown on the page; a delivery records the LinkedIn format as approved (`approved_format`).
 * - Fingerprints are SHA-256 of canonical JSON. A delivery carries the fingerprint of the post content with
 *   its own destination's link and board (`destinationFingerprint`), and the link and board as approved; the
 *   delivery engine compares it with the post before every step that can create something on the network
 *   (./engine.ts).
 *
 * While a post has a pending schedule or a delivery not yet published, the tools that would change what was
 * approved are refused (`assertContentUnlocked`, `assertLinkUnlocked`).
 */
import type { Knex } from "../../db/knex.ts";
import { canonicalHash } from "../../crypto/canonical-json.ts";
import { ToolError } from "../../errors.ts";
import { sendsAsDocument } from "../../providers/social/linkedin/documents.ts";
import { BOARD_SETTING } from "../../providers/social/pinterest/boards.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";
import type { ApprovedContent, DestinationContent, PostContent } from "../../tool-contract.ts";
import { postMedia } from "./validate.ts";

export type { ApprovedContent, DestinationContent, PostContent };

/**
 * The content of post `postId` now. @throws Error when the post does not exist (callers have checked
 * ownership before).
 */
export async function postContent(db: Knex, postId: string): Promise<PostContent> {
  const post = await db("posts")
    .where({ id: postId })
    .first("id", "type", "title", "caption", "media_asset_ids", "alt_texts");
  if (!post) throw new Error("post not found");
  const ids: string[] = Array.isArray(post.media_asset_ids) ? post.media_asset_ids.map(String) : [];
  const altTexts = (await postMedia(db, { ...post, media_asset_ids: ids })).map((m) => m.altText ?? null);
  const slides: Array<{ image_asset_id: string | null }> =
    post.type === "carousel"
      ? await db("carousel_slides").where({ post_id: postId }).orderBy("position").select("image_asset_id")
      : [];
  return {
    post_id: post.id,
    type: post.type,
    title: post.title ?? null,
    caption: post.caption ?? null,
    slide_asset_ids: slides.map((s) => s.image_asset_id ?? null),
    media_asset_ids: ids,
    ...(altTexts.some((a) => a !== null) ? { alt_texts: altTexts } : {}),
  };
}

/**
 * The content an approval of post `postId` to `accounts` binds, read now: the post's content and, for each
 * Pinterest destination, the product URL as the Pin's link and the account's chosen board; for each LinkedIn
 * destination of a post of two or more images, the format the account's `linkedin_carousel` gives it
 * (src/providers/social/linkedin/documents.ts `sendsAsDocument`).
 */
export async function approvedContent(
  db: Knex,
  postId: string,
  accounts: ReadonlyArray<{ social_account_id: string; network: Network }>,
): Promise<ApprovedContent> {
  const content = await postContent(db, postId);
  const pinterest = accounts.filter((a) => a.network === "pinterest");
  let link: string | null = null;
  const boards = new Map<string, string | null>();
  if (pinterest.length > 0) {
    const product = await db("posts as p")
      .join("products as pr", "pr.id", "p.product_id")
      .where("p.id", postId)
      .whereNull("pr.deleted_at")
      .first("pr.product_url");
    link = product?.product_url ?? null;
    const rows: Array<{ id: string; settings: Record<string, unknown> | null }> = await db("social_accounts")
      .whereIn(
        "id",
        pinterest.map((a) => a.social_account_id),
      )
      .select("id", "settings");
    for (const r of rows) {
      const board = r.settings?.[BOARD_SETTING];
      boards.set(r.id, typeof board === "string" && board !== "" ? board : null);
    }
  }
  const formats = await linkedinFormats(db, content, accounts);
  return {
    ...content,
    destinations: accounts.map((a) => ({
      social_account_id: a.social_account_id,
      network: a.network,
      link: a.network === "pinterest" ? link : null,
      board_id: a.network === "pinterest" ? (boards.get(a.social_account_id) ?? null) : null,
      ...(formats.has(a.social_account_id) ? { linkedin_carousel: formats.get(a.social_account_id) } : {}),
    })),
  };
}

/**
 * For each LinkedIn account among `accounts`, how a post of `content` goes out there when it has two or more
 * images: `document` (the default) or `images` (the account's `linkedin_carousel: images`). Empty for other
 * posts (one image, a video, text), whose shape no setting changes.
 */
async function linkedinFormats(
  db: Knex,
  content: PostContent,
  accounts: ReadonlyArray<{ social_account_id: string; network: Network }>,
): Promise<Map<string, "document" | "images">> {
  const out = new Map<string, "document" | "images">();
  const linkedin = accounts.filter((a) => a.network === "linkedin");
  if (linkedin.length === 0) return out;
  const media = await postMedia(db, {
    id: content.post_id,
    type: content.type,
    media_asset_ids: content.media_asset_ids,
    alt_texts: null,
  });
  if (media.length < 2 || media.some((m) => m.kind !== "image")) return out;
  const rows: Array<{ id: string; settings: Record<string, unknown> | null }> = await db("social_accounts")
    .whereIn(
      "id",
      linkedin.map((a) => a.social_account_id),
    )
    .select("id", "settings");
  for (const r of rows) out.set(r.id, sendsAsDocument(media, r.settings ?? {}) ? "document" : "images");
  return out;
}

/** The fingerprint of a whole approval (the post and every destination). */
export function contentFingerprint(content: ApprovedContent): string {
  return canonicalHash(content);
}

/** The fingerprint a delivery carries: the post content with its destination's link and board. */
export function destinationFingerprint(
  content: PostContent,
  destination: Pick<DestinationContent, "link" | "board_id">,
): string {
  const post: PostContent = {
    post_id: content.post_id,
    type: content.type,
    title: content.title,
    caption: content.caption,
    slide_asset_ids: content.slide_asset_ids,
    media_asset_ids: content.media_asset_ids,
    ...(content.alt_texts ? { alt_texts: content.alt_texts } : {}),
  };
  return canonicalHash({ post, link: destination.link, board_id: destination.board_id });
}

/**
 * The fingerprint of a post's own content (no destination: no link, no board), as approve_carousel binds it
 * (`posts.approved_fingerprint`) and a TikTok review page shows it.
 */
export function postFingerprint(content: PostContent): string {
  return destinationFingerprint(content, { link: null, board_id: null });
}

/**
 * Records that the publication approved in the browser also approved `post`'s content when it was a carousel
 * not approved yet (./deliveries.ts `needsCarouselApproval`: one approval for "approve and schedule"), as
 * approve_carousel does (`posts.approved_fingerprint`); other posts are left as they are. `content` is the
 * content the approval bound, already checked against the post.
 */
export async function recordCarouselApproval(
  db: Knex,
  post: { id: string; type: string; status: string },
  content: PostContent,
  needsApproval: boolean,
): Promise<void> {
  if (post.type !== "carousel" || !needsApproval) return;
  await db("posts")
    .where({ id: post.id })
    .update({ approved_fingerprint: postFingerprint(content) });
}

/**
 * Refuses a carousel whose content changed since it was approved (`posts.approved_fingerprint`: set by
 * approve_carousel, and kept by a regeneration of a published or failed carousel, whose status stays): its
 * new slides were never approved. A carousel approved before fingerprints were recorded (null) passes.
 * @throws ToolError validation_failed naming approve_carousel.
 */
export async function assertCarouselStillApproved(db: Knex, postId: string): Promise<void> {
  const row = await db("posts").where({ id: postId }).first("type", "approved_fingerprint");
  if (row?.type !== "carousel" || !row.approved_fingerprint) return;
  if (postFingerprint(await postContent(db, postId)) === row.approved_fingerprint) return;
  throw new ToolError(
    "validation_failed",
    "the carousel changed since it was approved (a slide was regenerated or retried); approve it again with approve_carousel before it is published or scheduled",
    { post_id: postId },
  );
}

/** A delivery of a post that is not finished yet, with its schedule. */
interface PendingDelivery {
  id: string;
  status: string;
  schedule_id: string | null;
  scheduled_for: Date | null;
  network: Network;
  display_name: string;
}

/** Delivery statuses that still lead to a network post (a TikTok post waiting in `needs_review` is not approved yet). */
const PENDING = ["pending", "uploading", "processing", "outcome_unknown"];

async function pendingDeliveries(db: Knex, postIds: readonly string[]): Promise<PendingDelivery[]> {
  if (postIds.length === 0) return [];
  return db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .leftJoin("schedules as s", "s.id", "d.schedule_id")
    .whereIn("d.post_id", postIds)
    .whereIn("d.status", PENDING)
    .orderBy([{ column: "s.scheduled_for" }, { column: "d.created_at" }])
    .select("d.id", "d.status", "d.schedule_id", "s.scheduled_for", "a.network", "a.display_name");
}

/** The sentence naming what holds the content, and what to do. */
function lockedMessage(what: string, pending: PendingDelivery[]): string {
  const scheduled = pending.find((d) => d.schedule_id);
  const first = pending[0]!;
  const holder = scheduled
    ? `a pending schedule (schedule_id ${scheduled.schedule_id}, for ${scheduled.scheduled_for ? new Date(scheduled.scheduled_for).toISOString() : "later"}, to ${NETWORK_RULES[scheduled.network].label} "${scheduled.display_name}")`
    : `a delivery that is not published yet (delivery_id ${first.id}, ${first.status}, to ${NETWORK_RULES[first.network].label} "${first.display_name}")`;
  const todo = scheduled
    ? "cancel the schedule on the posts page (/posts) in the browser, or wait until it is published, then request approval again for the changed post"
    : "wait until list_deliveries shows it published or failed";
  return `${what}: the post has ${holder}, and what was approved is what goes out. To change it, ${todo}.`;
}

/**
 * Refuses a change to the content of post `postId` (slides, caption, title, media) while it has a pending
 * schedule or a delivery not yet published.
 * @throws ToolError validation_failed naming the schedule or delivery and what to do, with
 *   `details: {post_id, schedule_ids, delivery_ids}`.
 */
export async function assertContentUnlocked(db: Knex, postId: string, what: string): Promise<void> {
  const pending = await pendingDeliveries(db, [postId]);
  if (pending.length === 0) return;
  throw new ToolError("validation_failed", lockedMessage(what, pending), {
    post_id: postId,
    schedule_ids: [...new Set(pending.map((d) => d.schedule_id).filter(Boolean))],
    delivery_ids: pending.map((d) => d.id),
  });
}

/**
 * Refuses a change of the URL of product `productId` while a pending Pin of one of its posts links to it.
 * @throws ToolError validation_failed naming the schedule or delivery and what to do.
 */
export async function assertLinkUnlocked(
  db: Knex,
  productId: string,
  currentUrl: string | null,
): Promise<void> {
  const pins: Array<{ post_id: string; approved_link: string | null }> = await db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .join("posts as p", "p.id", "d.post_id")
    .where({ "p.product_id": productId, "a.network": "pinterest" })
    .whereIn("d.status", PENDING)
    .select("d.post_id", "d.approved_link");
  // A delivery made before links were approved reads the product URL when the Pin is created.
  const linked = pins.filter((p) => (p.approved_link ?? currentUrl) === currentUrl);
  if (linked.length === 0) return;
  const pending = (await pendingDeliveries(db, [...new Set(linked.map((p) => p.post_id))])).filter(
    (d) => d.network === "pinterest",
  );
  throw new ToolError(
    "validation_failed",
    lockedMessage("product_url cannot change now: it is the approved link of a pending Pin", pending),
    {
      product_id: productId,
      schedule_ids: [...new Set(pending.map((d) => d.schedule_id).filter(Boolean))],
      delivery_ids: pending.map((d) => d.id),
    },
  );
}

/** What differs between two contents, in plain words (for a refusal); [] when nothing does. */
function differences(approved: ApprovedContent, current: ApprovedContent): string[] {
  const same = (a: unknown, b: unknown) => canonicalHash(a) === canonicalHash(b);
  const out: string[] = [];
  if (!same(approved.slide_asset_ids, current.slide_asset_ids)) out.push("its slides");
  if (approved.caption !== current.caption) out.push("its caption");
  if (approved.title !== current.title) out.push("its title");
  if (!same(approved.media_asset_ids, current.media_asset_ids)) out.push("its media");
  if (!same(approved.alt_texts ?? null, current.alt_texts ?? null)) out.push("its alt text");
  const links = (c: ApprovedContent) => c.destinations.map((d) => d.link);
  const boards = (c: ApprovedContent) => c.destinations.map((d) => d.board_id);
  if (!same(links(approved), links(current))) out.push("the Pinterest link");
  if (!same(boards(approved), boards(current))) out.push("the Pinterest board");
  const formats = (c: ApprovedContent) => c.destinations.map((d) => d.linkedin_carousel ?? null);
  if (!same(formats(approved), formats(current))) out.push("the LinkedIn format (linkedin_carousel)");
  if ((approved.first_comment ?? null) !== (current.first_comment ?? null)) out.push("the first comment");
  if (out.length === 0 && contentFingerprint(approved) !== contentFingerprint(current))
    out.push("its destinations");
  return out;
}

/**
 * Checks that `current` is still what was approved (`approved`, from the approval request).
 * @throws ToolError validation_failed naming what changed; nothing has been created then.
 */
export function assertApprovedContent(approved: ApprovedContent, current: ApprovedContent): void {
  const changed = differences(approved, current);
  if (changed.length === 0) return;
  throw new ToolError(
    "validation_failed",
    `the post changed after it was approved (${changed.join(", ")}); nothing was published. Request approval again so that what goes out is what the user approved.`,
    { post_id: approved.post_id, changed },
  );
}

/**
 * The approval binding a delivery to `accountId` carries (columns of `deliveries`): the fingerprint, the
 * Pinterest link and board, and the LinkedIn format as approved (`approved_format`, null when the post's
 * shape there depends on no setting).
 */
export function deliveryBinding(
  content: ApprovedContent,
  accountId: string,
): {
  content_fingerprint: string;
  approved_link: string | null;
  approved_board_id: string | null;
  approved_format: "document" | "images" | null;
} {
  const d: Pick<DestinationContent, "link" | "board_id" | "linkedin_carousel"> = content.destinations.find(
    (x) => x.social_account_id === accountId,
  ) ?? {
    link: null,
    board_id: null,
  };
  return {
    content_fingerprint: destinationFingerprint(content, d),
    approved_link: d.link,
    approved_board_id: d.board_id,
    approved_format: d.linkedin_carousel ?? null,
  };
}

/** The reason a delivery fails when its post no longer matches what was approved. */
export const CHANGED_AFTER_APPROVAL =
  "the post changed after it was approved (its slides, caption, title or media differ from what the user approved); nothing was sent to the network. Request approval again to publish the new version.";

/**
 * True when post `postId` still publishes what a delivery bound with `binding` approved.
 */
export async function deliveryStillApproved(
  db: Knex,
  postId: string,
  binding: { content_fingerprint: string; approved_link: string | null; approved_board_id: string | null },
): Promise<boolean> {
  const current = await postContent(db, postId);
  return (
    destinationFingerprint(current, { link: binding.approved_link, board_id: binding.approved_board_id }) ===
    binding.content_fingerprint
  );
}
