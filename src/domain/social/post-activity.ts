/**
 * What the posts page shows (src/web/posts.ts): the owner's posts newest first, each with a thumbnail, its
 * schedules and its deliveries per network (account, state, times, `post_url`, the safe failure reason), and
 * the schedules of one week. Read-only; every query is scoped to the owner (user and workspace) and only
 * ever reads the safe columns of social accounts (no token).
 */
import type { Knex } from "../../db/knex.ts";
import { isUuid } from "../../ids.ts";
import type { Network } from "../../providers/social/types.ts";
import type { PostStatus } from "../content/posts.ts";
import { keysetPage, pageSize } from "../cursor.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { type DeliveryView, deliveriesQuery, deliveryView } from "./deliveries.ts";
import { postLabel } from "./publish.ts";
import type { ScheduleStatus } from "./schedules.ts";

/** One delivery of a post to one account (the delivery's view, with the account's safe columns). */
export interface ActivityDelivery extends DeliveryView {
  account: { id: string; display_name: string; handle: string | null; mode: string; status: string };
  /** RFC 3339 time of the delivery's last change. */
  updated_at: string;
}

/** One schedule of a post with its deliveries. */
export interface ActivitySchedule {
  schedule_id: string;
  scheduled_for: Date;
  status: ScheduleStatus;
  /** Why a canceled schedule stopped (the owner canceled it, or the account was suspended). */
  status_reason: string | null;
  deliveries: ActivityDelivery[];
}

/** One post with everything that happened to it on the networks. */
export interface PostActivity {
  post_id: string;
  type: string;
  status: PostStatus;
  title: string | null;
  caption: string | null;
  /** The caption excerpt or title (at most 80 characters), or "Untitled {type} post" (./publish.ts). */
  label: string;
  created_at: Date;
  /** The first image of the post (its first media asset or first carousel slide), for a thumbnail. */
  thumbnail_asset_id: string | null;
  /** Schedules, latest time first. */
  schedules: ActivitySchedule[];
  /** Deliveries published at once (not part of a schedule), by network. */
  deliveries: ActivityDelivery[];
}

export interface PostActivityFilter {
  /** Only posts in this status. */
  status?: PostStatus | undefined;
  /** Only posts with a delivery (scheduled or not) to an account of this network. */
  network?: Network | undefined;
  /** Only this post. */
  post_id?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * One page of the owner's posts (not deleted), newest first, with their schedules and deliveries.
 * @throws ToolError validation_failed for a bad cursor or limit (1..50).
 */
export async function listPostActivity(
  db: Knex,
  owner: Owner,
  filter: PostActivityFilter = {},
): Promise<{ items: PostActivity[]; next_cursor: string | null }> {
  const q = db("posts as p")
    .where(ownedBy(owner, "p"))
    .whereNull("p.deleted_at")
    .select("p.id", "p.type", "p.status", "p.title", "p.caption", "p.media_asset_ids", "p.created_at");
  if (filter.status) q.where("p.status", filter.status);
  if (filter.post_id) q.where("p.id", filter.post_id);
  if (filter.network) {
    const network = filter.network;
    q.whereExists((e) =>
      e
        .select(1)
        .from("deliveries as d")
        .join("social_accounts as a", "a.id", "d.social_account_id")
        .whereRaw("d.post_id = p.id")
        .where("a.network", network),
    );
  }
  const page = await keysetPage<any>(db, q, { limit: pageSize(filter.limit), cursor: filter.cursor }, "p");
  const ids = page.rows.map((r) => r.id as string);
  const [deliveries, schedules, thumbnails] = await Promise.all([
    deliveriesOf(db, owner, ids),
    ids.length === 0
      ? []
      : db("schedules")
          .where(ownedBy(owner))
          .whereIn("post_id", ids)
          .orderBy([
            { column: "scheduled_for", order: "desc" },
            { column: "id", order: "desc" },
          ])
          .select("id", "post_id", "scheduled_for", "status", "status_reason"),
    thumbnailsOf(db, owner, page.rows),
  ]);
  const items = page.rows.map((r): PostActivity => {
    const mine = deliveries.filter((d) => d.post_id === r.id);
    return {
      post_id: r.id,
      type: r.type,
      status: r.status,
      title: r.title,
      caption: r.caption,
      label: postLabel(r),
      created_at: new Date(r.created_at),
      thumbnail_asset_id: thumbnails.get(r.id) ?? null,
      schedules: schedules
        .filter((s: any) => s.post_id === r.id)
        .map((s: any) => ({
          schedule_id: s.id,
          scheduled_for: new Date(s.scheduled_for),
          status: s.status,
          status_reason: s.status_reason ?? null,
          deliveries: mine.filter((d) => d.schedule_id === s.id),
        })),
      deliveries: mine.filter((d) => d.schedule_id === null),
    };
  });
  return { items, next_cursor: page.next_cursor };
}

/** One of the owner's schedules with its post's activity; undefined when the owner has no such schedule. */
export async function scheduleActivity(
  db: Knex,
  owner: Owner,
  scheduleId: string,
): Promise<{ post: PostActivity; schedule: ActivitySchedule } | undefined> {
  if (!isUuid(scheduleId)) return undefined;
  const row = await db("schedules").where(ownedBy(owner)).where({ id: scheduleId }).first("post_id");
  if (!row) return undefined;
  const [post] = (await listPostActivity(db, owner, { post_id: row.post_id, limit: 1 })).items;
  const schedule = post?.schedules.find((s) => s.schedule_id === scheduleId);
  return post && schedule ? { post, schedule } : undefined;
}

/** The deliveries of `postIds` with their accounts' safe columns, by network then account name. */
async function deliveriesOf(db: Knex, owner: Owner, postIds: string[]): Promise<ActivityDelivery[]> {
  if (postIds.length === 0) return [];
  const rows: any[] = await deliveriesQuery(db, owner)
    .whereIn("d.post_id", postIds)
    .orderBy([{ column: "a.network" }, { column: "a.display_name" }, { column: "d.created_at" }])
    .select("d.updated_at", "a.display_name", "a.handle", "a.mode", "a.status as account_status");
  return rows.map((r) => ({
    ...deliveryView(r),
    account: {
      id: r.social_account_id,
      display_name: r.display_name,
      handle: r.handle ?? null,
      mode: r.mode,
      status: r.account_status,
    },
    updated_at: new Date(r.updated_at).toISOString(),
  }));
}

/**
 * The first image of each post: its first media asset when that is an owned live image, else (a carousel)
 * the image of its first slide that has one.
 */
async function thumbnailsOf(
  db: Knex,
  owner: Owner,
  posts: Array<{ id: string; type: string; media_asset_ids: string[] | null }>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const firsts = posts
    .map((p) => ({ post: p.id, asset: Array.isArray(p.media_asset_ids) ? p.media_asset_ids[0] : undefined }))
    .filter((f): f is { post: string; asset: string } => typeof f.asset === "string");
  if (firsts.length > 0) {
    const images = new Set(
      (
        await db("media_assets")
          .where(ownedBy(owner))
          .whereIn(
            "id",
            firsts.map((f) => f.asset),
          )
          .where({ kind: "image" })
          .whereNull("deleted_at")
          .select("id")
      ).map((r: { id: string }) => r.id),
    );
    for (const f of firsts) if (images.has(f.asset)) out.set(f.post, f.asset);
  }
  const carousels = posts.filter((p) => p.type === "carousel" && !out.has(p.id)).map((p) => p.id);
  if (carousels.length > 0) {
    const slides: Array<{ post_id: string; image_asset_id: string }> = await db("carousel_slides")
      .whereIn("post_id", carousels)
      .whereNotNull("image_asset_id")
      .distinctOn("post_id")
      .orderBy([{ column: "post_id" }, { column: "position" }])
      .select("post_id", "image_asset_id");
    for (const s of slides) out.set(s.post_id, s.image_asset_id);
  }
  return out;
}

/** One schedule in the week view. */
export interface WeekEntry {
  schedule_id: string;
  post_id: string;
  post_label: string;
  scheduled_for: Date;
  status: ScheduleStatus;
  /** The networks of its deliveries, sorted, each once. */
  networks: Network[];
}

/**
 * The owner's schedules with `from <= scheduled_for < to` (canceled ones included: the page says so),
 * earliest first, at most 200.
 */
export async function schedulesBetween(db: Knex, owner: Owner, from: Date, to: Date): Promise<WeekEntry[]> {
  const rows: any[] = await db("schedules as s")
    .join("posts as p", "p.id", "s.post_id")
    .where(ownedBy(owner, "s"))
    .whereNull("p.deleted_at")
    .where("s.scheduled_for", ">=", from)
    .where("s.scheduled_for", "<", to)
    .orderBy([{ column: "s.scheduled_for" }, { column: "s.id" }])
    .limit(200)
    .select(
      "s.id",
      "s.post_id",
      "s.scheduled_for",
      "s.status",
      "p.type",
      "p.title",
      "p.caption",
      db.raw(
        `coalesce((select array_agg(distinct a.network order by a.network) from deliveries d
           join social_accounts a on a.id = d.social_account_id where d.schedule_id = s.id), '{}') as networks`,
      ),
    );
  return rows.map((r) => ({
    schedule_id: r.id,
    post_id: r.post_id,
    post_label: postLabel(r),
    scheduled_for: new Date(r.scheduled_for),
    status: r.status,
    networks: r.networks ?? [],
  }));
}
