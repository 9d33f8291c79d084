/**
 * Deliveries: one record per (post, destination account) publication attempt (service spec 2.7). A delivery
 * carries `post_url` once published and may stay `pending` (for example while the account must be
 * reconnected). Publishing goes through the social provider boundary.
 */
import { isUuid } from "../../ids.ts";
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import { keysetPage, pageSize } from "../cursor.ts";
import { type Owner, ownedBy } from "../owner.ts";
import type { Network } from "../../providers/social/types.ts";
import { providerAccount } from "./accounts.ts";

/** Delivery statuses (service spec 2.7). */
export const DELIVERY_STATUSES = ["pending", "publishing", "published", "failed", "needs_review"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryView {
  delivery_id: string;
  post_id: string;
  social_account_id: string;
  schedule_id: string | null;
  network: Network;
  status: DeliveryStatus;
  post_url: string | null;
  scheduled_for: string | null;
  published_at: string | null;
}

const COLUMNS = [
  "d.id",
  "d.post_id",
  "d.social_account_id",
  "d.schedule_id",
  "d.status",
  "d.post_url",
  "d.scheduled_for",
  "d.published_at",
  "d.created_at",
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
    scheduled_for: r.scheduled_for ? new Date(r.scheduled_for).toISOString() : null,
    published_at: r.published_at ? new Date(r.published_at).toISOString() : null,
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

/** Statuses from which a post may be published or scheduled; carousels need approval first. */
const PUBLISHABLE = new Set(["draft", "needs_review", "approved", "failed", "published", "scheduled"]);
const CAROUSEL_PUBLISHABLE = new Set(["approved", "scheduled", "published", "failed"]);

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

/** Checks that `post` can be published: a known status, and a carousel that is approved with every slide ready. */
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
    if (!CAROUSEL_PUBLISHABLE.has(post.status)) {
      throw new ToolError(
        "validation_failed",
        "a carousel must be approved with approve_carousel before it is published or scheduled",
      );
    }
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
  }
}

/**
 * Publishes each of `deliveryIds` through the social provider and records the outcome on the delivery:
 * `published` (with `post_url`), `pending` or `failed`. Then derives the post's status.
 * Runs outside any caller transaction (provider calls are slow); each delivery is updated on its own.
 */
export async function publishDeliveries(
  app: AppContext,
  deliveryIds: string[],
  signal?: AbortSignal,
): Promise<void> {
  const provider = app.providers.social;
  for (const id of deliveryIds) {
    const claimed = await app
      .db("deliveries")
      .where({ id })
      .whereIn("status", ["pending"])
      .update({ status: "publishing", updated_at: app.clock.now() })
      .returning(["id", "post_id", "social_account_id"]);
    const d = claimed[0];
    if (!d) continue;
    const post = await app.db("posts").where({ id: d.post_id }).first();
    const account = await providerAccount(app.db, app.sealer, d.social_account_id);
    let outcome: Awaited<ReturnType<typeof provider.publish>>;
    try {
      outcome = await provider.publish(
        account,
        {
          deliveryId: id,
          postId: d.post_id,
          type: post.type,
          caption: post.caption,
          mediaAssetIds: post.media_asset_ids ?? [],
        },
        signal,
      );
    } catch (err) {
      app.log.warn(
        { delivery_id: id, err: { name: (err as Error)?.name } },
        "social provider publish failed",
      );
      outcome = { status: "failed", reason: "the network did not accept the post" };
    }
    const now = app.clock.now();
    if (outcome.status === "published") {
      await app.db("deliveries").where({ id }).update({
        status: "published",
        post_url: outcome.postUrl,
        provider_post_id: outcome.providerPostId,
        published_at: now,
        error: null,
        updated_at: now,
      });
    } else {
      await app
        .db("deliveries")
        .where({ id })
        .update({ status: outcome.status, error: outcome.reason, updated_at: now });
    }
  }
  const postIds = await app.db("deliveries").whereIn("id", deliveryIds).distinct("post_id");
  for (const { post_id } of postIds) await refreshPostStatus(app.db, post_id, app.clock.now());
}

/**
 * Derives a post's status from its deliveries: every delivery published -> `published`; any published or in
 * flight -> `publishing` (or `published` when the rest failed); only future pending deliveries -> `scheduled`;
 * all failed -> `failed`.
 */
export async function refreshPostStatus(db: Knex, postId: string, now: Date): Promise<void> {
  const rows: Array<{ status: string; scheduled_for: Date | null }> = await db("deliveries")
    .where({ post_id: postId })
    .select("status", "scheduled_for");
  if (rows.length === 0) return;
  const count = (s: string) => rows.filter((r) => r.status === s).length;
  const futurePending = rows.filter(
    (r) => r.status === "pending" && r.scheduled_for && r.scheduled_for > now,
  ).length;
  let status: string;
  if (count("published") === rows.length) status = "published";
  else if (
    futurePending > 0 &&
    futurePending === count("pending") &&
    count("publishing") === 0 &&
    count("published") === 0
  )
    status = "scheduled";
  else if (count("pending") + count("publishing") > 0) status = "publishing";
  else if (count("published") > 0) status = "published";
  else status = "failed";
  await db("posts").where({ id: postId }).update({ status, updated_at: now });
}
