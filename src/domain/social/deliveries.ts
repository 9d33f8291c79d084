/**
 * Deliveries: one record per (post, destination account) publication (service spec 2.7). A delivery moves
 * through `pending -> uploading -> processing -> published | failed` (plus `outcome_unknown`, and
 * `needs_review` for TikTok posts waiting for the review page), driven by the engine (./engine.ts); it
 * carries the network's `post_url` once published (a sandbox account's is this service's
 * `/sandbox/{network}/{delivery}` page) and the safe `reason` of a failure or wait.
 */
import { isUuid } from "../../ids.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import { keysetPage, pageSize } from "../cursor.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { DELIVERY_STATES } from "../../providers/social/network.ts";
import type { Network } from "../../providers/social/types.ts";
import { assertCarouselStillApproved } from "./content.ts";
import { type FirstCommentView, firstCommentView } from "./first-comment.ts";

/** Delivery statuses (service spec 2.7). */
export const DELIVERY_STATUSES = [...DELIVERY_STATES, "needs_review", "removed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryView {
  delivery_id: string;
  post_id: string;
  social_account_id: string;
  schedule_id: string | null;
  network: Network;
  status: DeliveryStatus;
  post_url: string | null;
  /**
   * What `post_url` shows: `post` (the post itself) or `profile` (only the creator's profile: the network
   * gave no post id, e.g. a private TikTok post); null without a `post_url`.
   */
  post_url_kind: "post" | "profile" | null;
  /** Why the delivery failed, waits or is unknown (safe text); null when published or on its way. */
  reason: string | null;
  scheduled_for: string | null;
  published_at: string | null;
  /** The first comment under the post (./first-comment.ts); null when the delivery has none. */
  first_comment: FirstCommentView | null;
}

const COLUMNS = [
  "d.id",
  "d.post_id",
  "d.social_account_id",
  "d.schedule_id",
  "d.status",
  "d.post_url",
  "d.post_url_kind",
  "d.error",
  "d.scheduled_for",
  "d.published_at",
  "d.created_at",
  "d.first_comment_status",
  "d.first_comment_url",
  "d.first_comment_reason",
  "a.network",
];

/** Maps a joined delivery row to its view. */
export function deliveryView(r: any): DeliveryView {
  return {
    delivery_id: r.id,
    post_id: r.post_id,
    social_account_id: r.social_account_id,
    schedule_id: r.schedule_id ?? null,
    network: r.network,
    status: r.status,
    post_url: r.post_url ?? null,
    post_url_kind: r.post_url ? (r.post_url_kind === "profile" ? "profile" : "post") : null,
    reason: r.status === "published" ? null : (r.error ?? null),
    scheduled_for: r.scheduled_for ? new Date(r.scheduled_for).toISOString() : null,
    published_at: r.published_at ? new Date(r.published_at).toISOString() : null,
    first_comment: firstCommentView(r),
  };
}

/** Base query of the owner's deliveries joined with their accounts. */
export function deliveriesQuery(db: Knex, owner: Owner) {
  return db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .where(ownedBy(owner, "d"))
    .select(COLUMNS);
}

export interface DeliveryFilter {
  post_id?: string | undefined;
  schedule_id?: string | undefined;
  status?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** The reason a delivery of a deleted post stops with, by whether anything had reached the network. */
export function postDeletedReason(sentSomething: boolean): string {
  return sentSomething
    ? "the post was deleted before it was published: the service published nothing more (what was already uploaded may still appear if the network publishes it on its own; check the account)"
    : "the post was deleted before it was published; nothing was sent to the network";
}

/**
 * Stops the deliveries of deleted post `postId` that are not published yet and not in a step right now
 * (`pending`, `uploading`, `processing`, `needs_review`, unleased): they become `failed` with
 * `postDeletedReason`. A delivery in a step now, or `outcome_unknown`, is left to the delivery engine, which
 * checks `deleted_at` before every step that can create something (./engine.ts) after reconciling what may
 * exist. @returns the ids of the deliveries stopped.
 */
export async function stopDeliveriesOfDeletedPost(db: Knex, postId: string, now: Date): Promise<string[]> {
  const rows: Array<{ id: string }> = await db("deliveries")
    .where({ post_id: postId })
    .whereIn("status", ["pending", "uploading", "processing", "needs_review"])
    .whereNull("step_started_at")
    .where((q) => q.whereNull("locked_until").orWhere("locked_until", "<", now))
    .update({
      status: "failed",
      error: db.raw("case when network_ids = '{}'::jsonb or network_ids is null then ? else ? end", [
        postDeletedReason(false),
        postDeletedReason(true),
      ]),
      next_attempt_at: null,
      locked_until: null,
      updated_at: now,
    })
    .returning("id");
  return rows.map((r) => r.id);
}

/** The owner's delivery `deliveryId`, or undefined (another owner's, unknown or not a UUID). */
export async function getDelivery(
  db: Knex,
  owner: Owner,
  deliveryId: string,
): Promise<DeliveryView | undefined> {
  if (!isUuid(deliveryId)) return undefined;
  const row = await deliveriesQuery(db, owner).where("d.id", deliveryId).first();
  return row ? deliveryView(row) : undefined;
}

/**
 * One page of the owner's deliveries, newest first.
 * @throws ToolError not_found when `post_id` is not an owned post; validation_failed for a bad cursor/limit.
 */
export async function listDeliveries(
  db: Knex,
  owner: Owner,
  filter: DeliveryFilter,
): Promise<{ items: DeliveryView[]; next_cursor: string | null }> {
  const limit = pageSize(filter.limit);
  if (filter.post_id !== undefined) await ownedPost(db, owner, filter.post_id);
  const q = deliveriesQuery(db, owner);
  if (filter.post_id) q.where("d.post_id", filter.post_id);
  if (filter.schedule_id) q.where("d.schedule_id", filter.schedule_id);
  if (filter.status) q.where("d.status", filter.status);
  const page = await keysetPage(db, q, { limit, cursor: filter.cursor }, "d");
  return { items: page.rows.map(deliveryView), next_cursor: page.next_cursor };
}

/**
 * Statuses from which a post may be published or scheduled. A carousel not approved yet (draft or
 * needs_review) may be too: the one browser approval of publish_post, schedule_post or schedule_posts then
 * approves it with its publication (`needsCarouselApproval`). A post already published, scheduled or on its
 * way elsewhere may go to more networks (`assertNewDestinations` refuses the accounts that already have it).
 */
const PUBLISHABLE = new Set([
  "draft",
  "needs_review",
  "approved",
  "failed",
  "published",
  "scheduled",
  "publishing",
]);
const CAROUSEL_PUBLISHABLE = new Set(["approved", "scheduled", "published", "publishing", "failed"]);

/** Delivery statuses meaning the account has the post, or will: published, on its way, or waiting for review. */
const HAS_POST = ["published", "pending", "uploading", "processing", "outcome_unknown", "needs_review"];

/**
 * Refuses destinations where post `postId` is already published or pending (no accidental second post on one
 * account; other accounts may still get it).
 * @throws ToolError validation_failed naming each account, its network and what it has, with
 *   `details.destinations: [{social_account_id, delivery_id, status, schedule_id}]`.
 */
export async function assertNewDestinations(
  db: Knex,
  postId: string,
  accounts: ReadonlyArray<{ social_account_id: string; network: Network; display_name: string }>,
): Promise<void> {
  if (accounts.length === 0) return;
  const rows: Array<{ id: string; social_account_id: string; status: string; schedule_id: string | null }> =
    await db("deliveries")
      .where({ post_id: postId })
      .whereIn(
        "social_account_id",
        accounts.map((a) => a.social_account_id),
      )
      .whereIn("status", HAS_POST)
      .orderBy("created_at")
      .select("id", "social_account_id", "status", "schedule_id");
  if (rows.length === 0) return;
  const seen = new Set<string>();
  const taken = rows.filter((r) => !seen.has(r.social_account_id) && seen.add(r.social_account_id));
  const named = taken.map((r) => {
    const a = accounts.find((x) => x.social_account_id === r.social_account_id)!;
    const what =
      r.status === "published"
        ? "already published there"
        : r.schedule_id
          ? `already scheduled there (schedule_id ${r.schedule_id})`
          : `already on its way there (delivery_id ${r.id}, ${r.status})`;
    return `"${a.display_name}" (${a.network}, social_account_id ${a.social_account_id}): ${what}`;
  });
  throw new ToolError(
    "validation_failed",
    `the post is already at ${named.length === 1 ? "this destination" : "these destinations"}: ${named.join("; ")}. Remove ${named.length === 1 ? "it" : "them"} from social_account_ids; the post can go to accounts that do not have it yet.`,
    {
      destinations: taken.map((r) => ({
        social_account_id: r.social_account_id,
        delivery_id: r.id,
        status: r.status,
        schedule_id: r.schedule_id,
      })),
    },
  );
}

/**
 * The owner's post if it can go to a network: not deleted, and for carousels fully generated.
 * @throws ToolError not_found (not the owner's) or validation_failed (not ready).
 */
export async function ownedPost(db: Knex, owner: Owner, postId: string) {
  if (!isUuid(postId)) throw notFound("post");
  const post = await db("posts").where(ownedBy(owner)).where({ id: postId }).whereNull("deleted_at").first();
  if (!post) throw notFound("post");
  return post as {
    id: string;
    type: string;
    status: string;
    caption: string | null;
    title: string | null;
    media_asset_ids: string[];
    updated_at: Date;
  };
}

/**
 * True when `post` is a carousel not approved yet: publishing or scheduling it approves it in the same
 * browser approval (the page shows every slide).
 */
export function needsCarouselApproval(post: { type: string; status: string }): boolean {
  return post.type === "carousel" && !CAROUSEL_PUBLISHABLE.has(post.status);
}

/**
 * Checks that `post` can be published: a known status, and a carousel with every slide ready, either not
 * approved yet (the publication's own approval approves it: `needsCarouselApproval`) or still with the
 * content its approval bound (`assertCarouselStillApproved`: a published or failed carousel whose slides were
 * regenerated needs approve_carousel again).
 * @throws ToolError validation_failed naming the status, the carousel's unfinished slides, or its change.
 */
export async function assertPublishable(
  db: Knex,
  post: { id: string; type: string; status: string },
): Promise<void> {
  if (!PUBLISHABLE.has(post.status)) {
    throw new ToolError(
      "validation_failed",
      `a post in status ${post.status} cannot be published or scheduled now`,
    );
  }
  if (post.type === "carousel") {
    const row = await db("carousel_slides")
      .where({ post_id: post.id })
      .whereNot({ status: "ready" })
      .count({ n: "*" })
      .first();
    const total = await db("carousel_slides").where({ post_id: post.id }).count({ n: "*" }).first();
    if (Number(total?.n ?? 0) === 0 || Number(row?.n ?? 0) > 0) {
      throw new ToolError(
        "validation_failed",
        "the carousel is not fully generated; check get_carousel and retry_carousel first",
      );
    }
    if (!needsCarouselApproval(post)) await assertCarouselStillApproved(db, post.id);
  }
}
