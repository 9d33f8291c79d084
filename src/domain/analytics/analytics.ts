/**
 * Saved analytics (service spec 1.7, 2.7 analytics rules, 5.10, 7 rule 5): lifetime counters as of the last
 * sync (`analytics-sync.ts`), only for content published through the service (deliveries). `null` means the
 * network did not report a metric (missing), which is distinct from 0; `coverage` says whether a record is
 * complete, partial or has never been synced. A date window selects the publication cohort by
 * `published_at`, not daily increments. Analytics needs the Pro plan: the pipeline checks the catalog's
 * `plan: pro`, and `assertAnalyticsPlan` checks again here.
 */
import { SPEC_LIMITS } from "../../config.ts";
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { userPlan } from "../account/accounts.ts";
import { ownedPost } from "../social/deliveries.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { planAtLeast } from "../account/plans.ts";

import type { Network } from "../../providers/social/types.ts";

export type Coverage = "complete" | "partial" | "none";

/** Top-content result size (service spec 8). */
export const TOP_CONTENT_MAX = SPEC_LIMITS.topContentItems;

/** @throws ToolError forbidden unless the user is on the Pro plan. */
export async function assertAnalyticsPlan(db: Knex, userId: string): Promise<void> {
  if (!planAtLeast(await userPlan(db, userId), "pro")) {
    throw new ToolError(
      "forbidden",
      "analytics needs the Pro plan; the plan can be changed in the browser, not through tools",
    );
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function coverage(row: Record<string, unknown>, metrics: readonly string[]): Coverage {
  if (!row.synced_at) return "none";
  return metrics.every((m) => row[m] !== null && row[m] !== undefined) ? "complete" : "partial";
}

const ACCOUNT_METRICS = ["followers", "views", "likes", "comments", "shares"] as const;
const POST_METRICS = ["views", "likes", "comments", "shares", "saves"] as const;

/**
 * The saved counters `metrics` of a joined metrics row (each a number, or `null` when the network did not
 * report it), then `synced_at` (ISO 8601 or `null` when never synced) and `coverage`, in that key order.
 */
function savedCounters<M extends string>(
  row: Record<string, unknown>,
  metrics: readonly M[],
): Record<M, number | null> & { synced_at: string | null; coverage: Coverage } {
  const counters = Object.fromEntries(metrics.map((m) => [m, num(row[m])])) as Record<M, number | null>;
  return {
    ...counters,
    synced_at: row.synced_at ? new Date(row.synced_at as string | Date).toISOString() : null,
    coverage: coverage(row, metrics),
  };
}

/** Saved counters of the owner's connected accounts, optionally one account or one network. */
export async function accountAnalytics(
  db: Knex,
  owner: Owner,
  f: { social_account_id?: string | undefined; network?: string | undefined },
) {
  const q = db("social_accounts as a")
    .leftJoin("account_metrics as m", "m.social_account_id", "a.id")
    .where(ownedBy(owner, "a"))
    .select("a.id", "a.network", ...ACCOUNT_METRICS.map((m) => `m.${m}`), "m.synced_at");
  if (f.social_account_id) q.where("a.id", f.social_account_id);
  if (f.network) q.where("a.network", f.network);
  const rows = await q
    .orderBy([{ column: "a.network" }, { column: "a.display_name" }, { column: "a.id" }])
    .limit(50);
  if (f.social_account_id && rows.length === 0) throw new ToolError("not_found", "social account not found");
  return {
    accounts: rows.map((r: any) => ({
      social_account_id: r.id as string,
      network: r.network as Network,
      ...savedCounters(r, ACCOUNT_METRICS),
    })),
  };
}

/** Saved counters of each published delivery of the owner's post. @throws ToolError not_found. */
export async function postAnalytics(db: Knex, owner: Owner, postId: string) {
  await ownedPost(db, owner, postId);
  const rows = await db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .leftJoin("post_metrics as m", "m.delivery_id", "d.id")
    .where(ownedBy(owner, "d"))
    .where({ "d.post_id": postId, "d.status": "published" })
    .select("d.id", "a.network", ...POST_METRICS.map((m) => `m.${m}`), "m.synced_at")
    .orderBy([{ column: "d.published_at" }, { column: "d.id" }])
    .limit(50);
  return {
    post_id: postId,
    deliveries: rows.map((r: any) => ({
      delivery_id: r.id as string,
      network: r.network as Network,
      ...savedCounters(r, POST_METRICS),
    })),
  };
}

function parseBound(v: string | undefined, field: string): Date | null {
  if (v === undefined) return null;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw new ToolError("validation_failed", `${field} must be a date-time`);
  return d;
}

const excerpt = (text: string | null | undefined): string | null => {
  const t = (text ?? "").replace(/\s+/g, " ").trim();
  if (!t) return null;
  return t.length > 120 ? `${t.slice(0, 119)}…` : t;
};

/**
 * The owner's published deliveries with the most saved views (nulls excluded: ranking uses available views
 * only), at most 5, optionally within a publication window [published_from, published_to] and one network.
 * @throws ToolError validation_failed for an inverted window.
 */
export async function bestPerformingContent(
  db: Knex,
  owner: Owner,
  f: {
    published_from?: string | undefined;
    published_to?: string | undefined;
    network?: string | undefined;
    limit?: number | undefined;
  },
) {
  const from = parseBound(f.published_from, "published_from");
  const to = parseBound(f.published_to, "published_to");
  if (from && to && from > to)
    throw new ToolError("validation_failed", "published_from must not be after published_to");
  const limit = Math.min(TOP_CONTENT_MAX, Math.max(1, f.limit ?? TOP_CONTENT_MAX));
  const q = db("deliveries as d")
    .join("post_metrics as m", "m.delivery_id", "d.id")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .join("posts as p", "p.id", "d.post_id")
    .where(ownedBy(owner, "d"))
    .where("d.status", "published")
    .whereNotNull("m.views")
    .whereNotNull("d.published_at")
    .whereNull("p.deleted_at")
    .select("d.id", "d.post_id", "d.published_at", "a.network", "m.views", "p.caption", "p.title");
  if (from) q.where("d.published_at", ">=", from);
  if (to) q.where("d.published_at", "<=", to);
  if (f.network) q.where("a.network", f.network);
  const rows = await q
    .orderBy([
      { column: "m.views", order: "desc" },
      { column: "d.published_at", order: "desc" },
      { column: "d.id" },
    ])
    .limit(limit);
  return {
    items: rows.map((r: any) => ({
      post_id: r.post_id as string,
      delivery_id: r.id as string,
      caption_excerpt: excerpt(r.caption ?? r.title),
      network: r.network as Network,
      views: Number(r.views),
      published_at: new Date(r.published_at).toISOString(),
    })),
    window: { published_from: from ? from.toISOString() : null, published_to: to ? to.toISOString() : null },
  };
}
