/**
 * Posts and drafts (service spec 1.7 "Content and search", 2.7 "post / draft"). Tools create drafts only
 * (text posts and image posts from owned image assets); carousels and videos are created by generation.
 * Soft-deleted via `deleted_at`. Types: text | image | carousel | video. Statuses: draft | needs_review |
 * approved | scheduled | publishing | published | failed.
 */
import { isUuid } from "../../ids.ts";
import type { Network } from "../../providers/social/types.ts";
import { type DeliveryStatus, stopDeliveriesOfDeletedPost } from "../social/deliveries.ts";
import type { FirstCommentStatus } from "../social/first-comment.ts";
import type { RunStatus } from "../runs.ts";
import type { Knex } from "../../db/knex.ts";
import { pick, pickOrNull } from "../../db/rows.ts";
import { ToolError } from "../../errors.ts";
import { keysetPage, pageSize } from "../cursor.ts";
import { checkAltTexts } from "../media/alt-text.ts";
import { requireOwnedAssets } from "../media/media.ts";
import { postMedia } from "../social/validate.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { postMadeBy } from "./made-by.ts";

export const POST_TYPES = ["text", "image", "carousel", "video"] as const;
export const POST_STATUSES = [
  "draft",
  "needs_review",
  "approved",
  "scheduled",
  "publishing",
  "published",
  "failed",
] as const;
export type PostType = (typeof POST_TYPES)[number];
export type PostStatus = (typeof POST_STATUSES)[number];

/** The list projection of a post. */
export interface PostSummary {
  post_id: string;
  type: PostType;
  status: PostStatus;
  title: string | null;
  caption: string | null;
  product_id: string | null;
  media_asset_ids: string[];
  created_at: string;
  updated_at: string;
}

/** The full projection: adds carousel and delivery summaries, and who made its generated content. */
export interface PostDetail extends PostSummary {
  /** The latest carousel run; null unless the post is a carousel with a run. */
  carousel: { run_status: RunStatus; slide_count: number } | null;
  /** Who wrote the caption (`local`: the offline stand-in); null when it was not generated. */
  caption_provider: string | null;
  /** Who made the media (a carousel's slides, a generated video; `local` when the stand-in made any). */
  media_provider: string | null;
  /** The alt text of each media item as sent, in media order (null where none); [] for a post without media. */
  alt_texts: Array<string | null>;
  deliveries: Array<{
    delivery_id: string;
    network: Network;
    status: DeliveryStatus;
    post_url: string | null;
    /** `profile` when `post_url` is only the creator's profile (no post id from the network yet). */
    post_url_kind: "post" | "profile" | null;
    /** The first comment's status (src/domain/social/first-comment.ts); null without one. */
    first_comment: FirstCommentStatus | null;
  }>;
}

const notFound = () => new ToolError("not_found", "post not found");

function owned(db: Knex, owner: Owner) {
  return db("posts").where(ownedBy(owner)).whereNull("deleted_at");
}

/** Maps a posts row to the list projection. */
export function toPostSummary(row: Record<string, any>): PostSummary {
  return {
    post_id: row.id,
    ...pick(row, ["type", "status"]),
    ...pickOrNull(row, ["title", "caption", "product_id"]),
    media_asset_ids: Array.isArray(row.media_asset_ids) ? row.media_asset_ids : [],
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

async function requireOwnedProduct(
  db: Knex,
  owner: Owner,
  productId: string | null | undefined,
): Promise<string | null> {
  if (productId === undefined || productId === null) return null;
  const row = isUuid(productId)
    ? await db("products").where(ownedBy(owner)).where({ id: productId }).whereNull("deleted_at").first("id")
    : undefined;
  if (!row) throw new ToolError("not_found", "product not found");
  return productId;
}

function checkCaption(caption: string | undefined, required: boolean): string | null {
  const c = caption?.trim() ?? "";
  if (!c) {
    if (required) throw new ToolError("validation_failed", "caption must not be empty");
    return null;
  }
  return c;
}

/** The fields every draft a tool creates may carry besides its content. */
interface DraftFields {
  title?: string | null | undefined;
  status?: string | undefined;
  product_id?: string | null | undefined;
}

/** Tools create drafts only. @throws ToolError validation_failed for any other requested `status`. */
function requireDraftStatus(status: string | undefined): void {
  if (status !== undefined && status !== "draft")
    throw new ToolError("validation_failed", "status must be draft");
}

/**
 * Inserts an owned draft of `type` with the (trimmed) title and the owned product of `input`, plus the
 * type's own `content` columns, and returns its detail. Content is validated by the caller first.
 * @throws ToolError not_found for a foreign or deleted product.
 */
async function insertDraft(
  db: Knex,
  owner: Owner,
  type: PostType,
  input: DraftFields,
  content: { caption: string | null; media_asset_ids?: string },
): Promise<PostDetail> {
  const productId = await requireOwnedProduct(db, owner, input.product_id);
  const [row] = await db("posts")
    .insert({
      user_id: owner.userId,
      workspace_id: owner.workspaceId,
      type,
      status: "draft",
      title: input.title?.trim() || null,
      product_id: productId,
      ...content,
    })
    .returning("id");
  return getPost(db, owner, row.id);
}

/**
 * Saves a text post as a draft (service spec 4.3 `create_text_post`): never published by this call.
 * @throws ToolError validation_failed (empty caption, status other than draft), not_found (foreign product).
 */
export async function createTextPost(
  db: Knex,
  owner: Owner,
  input: DraftFields & { caption: string },
): Promise<PostDetail> {
  requireDraftStatus(input.status);
  const caption = checkCaption(input.caption, true);
  return insertDraft(db, owner, "text", input, { caption });
}

/**
 * Saves an image post from existing owned image assets as a draft. No remote media is downloaded.
 * @throws ToolError validation_failed (no images, a video asset, bad status), not_found (foreign asset/product).
 */
export async function createImagePost(
  db: Knex,
  owner: Owner,
  input: DraftFields & {
    media_asset_ids: string[];
    caption?: string | undefined;
    /** Alt text of each image, in media order (src/domain/media/alt-text.ts); fewer: the assets' own. */
    alt_texts?: string[] | undefined;
  },
): Promise<PostDetail> {
  requireDraftStatus(input.status);
  if (input.media_asset_ids.length === 0)
    throw new ToolError("validation_failed", "at least one image asset is needed");
  const altTexts = checkAltTexts(input.alt_texts, input.media_asset_ids.length);
  const ids = await requireOwnedAssets(db, owner, input.media_asset_ids, "image");
  return insertDraft(db, owner, "image", input, {
    caption: checkCaption(input.caption, false),
    media_asset_ids: JSON.stringify(ids),
    ...(altTexts.some((a) => a !== null) ? { alt_texts: JSON.stringify(altTexts) } : {}),
  });
}

/** The owner's post with carousel and delivery summaries. @throws ToolError not_found. */
export async function getPost(db: Knex, owner: Owner, postId: string): Promise<PostDetail> {
  if (!isUuid(postId)) throw notFound();
  const row = await owned(db, owner).where({ id: postId }).first();
  if (!row) throw notFound();
  let carousel: PostDetail["carousel"] = null;
  if (row.type === "carousel") {
    const run = await db("carousel_runs")
      .where({ post_id: postId })
      .orderBy("created_at", "desc")
      .first("status", "slide_count");
    carousel = run ? { run_status: run.status, slide_count: run.slide_count } : null;
  }
  const deliveries = await db("deliveries as d")
    .join("social_accounts as s", "s.id", "d.social_account_id")
    .where({ "d.post_id": postId, "d.user_id": owner.userId, "d.workspace_id": owner.workspaceId })
    .orderBy("d.created_at", "desc")
    .limit(50)
    .select("d.id", "s.network", "d.status", "d.post_url", "d.post_url_kind", "d.first_comment_status");
  const madeBy = await postMadeBy(db, row);
  const media = await postMedia(db, row);
  return {
    ...toPostSummary(row),
    carousel,
    caption_provider: madeBy.caption,
    media_provider: madeBy.media,
    alt_texts: media.map((m) => m.altText ?? null),
    deliveries: deliveries.map((d) => ({
      delivery_id: d.id,
      network: d.network,
      status: d.status,
      post_url: d.post_url ?? null,
      post_url_kind: d.post_url ? (d.post_url_kind === "profile" ? "profile" : "post") : null,
      first_comment: d.first_comment_status ?? null,
    })),
  };
}

/**
 * Lists the owner's posts newest first, filtered by status and/or type. `limit` 1..50 (default 20).
 * @throws ToolError validation_failed for a bad limit or cursor.
 */
export async function listContent(
  db: Knex,
  owner: Owner,
  opts: {
    limit?: number | undefined;
    cursor?: string | undefined;
    status?: PostStatus | undefined;
    type?: PostType | undefined;
  } = {},
): Promise<{ items: PostSummary[]; next_cursor: string | null }> {
  const limit = pageSize(opts.limit);
  const q = owned(db, owner).select("*");
  if (opts.status) q.where({ status: opts.status });
  if (opts.type) q.where({ type: opts.type });
  const page = await keysetPage(db, q, { limit, cursor: opts.cursor });
  return { items: page.rows.map(toPostSummary), next_cursor: page.next_cursor };
}

/**
 * Soft-deletes an owned post, cancels its pending schedules and stops its deliveries that are not published
 * yet (`stopDeliveriesOfDeletedPost`; one in a network step now is stopped by the delivery engine before its
 * next create), all in one transaction (idempotent: a post this owner already deleted succeeds with
 * deleted=false). `now` is the app's clock (the step leases are compared with it).
 * @throws ToolError not_found for a post the owner never had.
 */
export async function deletePost(
  db: Knex,
  owner: Owner,
  postId: string,
  now?: Date,
): Promise<{ post_id: string; deleted: boolean }> {
  if (!isUuid(postId)) throw notFound();
  const row = await db("posts").where(ownedBy(owner)).where({ id: postId }).first("id", "deleted_at");
  if (!row) throw notFound();
  if (row.deleted_at) return { post_id: postId, deleted: false };
  await db.transaction(async (trx) => {
    await trx("posts")
      .where({ id: postId })
      .whereNull("deleted_at")
      .update({ deleted_at: trx.fn.now(), updated_at: trx.fn.now() });
    // Pending schedules of a deleted post must not publish it, nor its deliveries under way.
    await trx("schedules")
      .where({ post_id: postId, status: "scheduled" })
      .update({ status: "canceled", updated_at: trx.fn.now() });
    await stopDeliveriesOfDeletedPost(trx, postId, now ?? new Date());
  });
  return { post_id: postId, deleted: true };
}

/** A caption excerpt (at most 60 characters) or the post type, for approval pages. */
export function postLabel(post: PostSummary): string {
  const text = (post.title ?? post.caption ?? "").replace(/\s+/g, " ").trim();
  if (!text) return `${post.type} post`;
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
