/**
 * Saved analytics (service spec 1.7, 2.7 analytics rules, 5.10, 7 rule 5): lifetime counters as of the last
 * successful sync (./sync.ts), only for content published through the service (deliveries). `null` means the
 * network did not report a metric (missing, listed in `missing`), which is distinct from 0; `coverage` says
 * whether a record is complete, partial (missing metrics, or a failed last sync with its `sync_error`) or
 * has never been synced; `source` says whether the numbers are the network's or sandbox numbers. A date
 * window selects the publication cohort by `published_at`, not daily increments. Analytics needs the Pro plan: the pipeline checks the catalog's
 * `plan: pro`, and `assertAnalyticsPlan` checks again here.
 */
import { SPEC_LIMITS } from "../../config/index.ts";
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { userPlan } from "../account/accounts.ts";
import { ownedPost } from "../social/deliveries.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { planAtLeast } from "../account/plans.ts";

import type { Network } from "../../providers/social/types.ts";
import type { MetricsSource } from "./saved-metrics.ts";

export type Coverage = "complete" | "partial" | "none";

/** Top-content result size (service spec 8). */
export const TOP_CONTENT_MAX = SPEC_LIMITS.topContentItems;

/** @throws ToolError forbidden unless the user is on the Pro plan. */
export async function assertAnalyticsPlan(db: Knex, userId: string): Promise<void> {
  if (!planAtLeast(await userPlan(db, userId), "pro")) {
    throw new ToolError(
      "forbidden",
      "analytics needs the Pro plan; the user can change the plan on /settings#billing, not through tools",
      { required_plan: "pro" },
      undefined,
      { actionPath: "/settings#billing" },
    );
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const ACCOUNT_METRICS = ["followers", "views", "likes", "comments", "shares"] as const;
const POST_METRICS = ["views", "reach", "likes", "comments", "shares", "saves"] as const;

/** The metrics-row columns read besides the counters (`m`: the metrics row, `a`: its social account). */
const STATUS_COLUMNS = ["m.synced_at", "m.source", "m.last_error", "a.mode"] as const;

/** Where saved numbers come from: the row's `source`, else the account's mode (never synced). */
function sourceOf(row: Record<string, unknown>): MetricsSource {
  if (row.source === "network" || row.source === "sandbox") return row.source;
  return row.mode === "live" ? "network" : "sandbox";
}

/**
 * The status of a joined metrics row of `metrics`: `coverage` (`none`: no successful sync; `partial`: a
 * metric the network does not report (`missing`, saved as null) or a failed last sync (`sync_error`, the
 * values then being those of `synced_at`); else `complete`), `missing`, `source` and `sync_error`.
 */
function syncStatus(row: Record<string, unknown>, metrics: readonly string[]) {
  const synced = Boolean(row.synced_at);
  const missing = synced ? metrics.filter((m) => row[m] === null || row[m] === undefined) : [];
  const syncError = typeof row.last_error === "string" ? row.last_error : null;
  const coverage: Coverage = !synced ? "none" : missing.length > 0 || syncError ? "partial" : "complete";
  return { coverage, missing, source: sourceOf(row), sync_error: syncError };
}

/**
 * The saved counters `metrics` of a joined metrics row (each a number, or `null` when the network did not
 * report it), `synced_at` (ISO 8601 or `null` when never synced) and the row's sync status (`syncStatus`).
 */
function savedCounters<M extends string>(row: Record<string, unknown>, metrics: readonly M[]) {
  const counters = Object.fromEntries(metrics.map((m) => [m, num(row[m])])) as Record<M, number | null>;
  return {
    ...counters,
    synced_at: row.synced_at ? new Date(row.synced_at as string | Date).toISOString() : null,
    ...syncStatus(row, metrics),
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
    .select("a.id", "a.network", ...ACCOUNT_METRICS.map((m) => `m.${m}`), ...STATUS_COLUMNS);
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
    .select("d.id", "a.network", ...POST_METRICS.map((m) => `m.${m}`), ...STATUS_COLUMNS)
    .orderBy([{ column: "d.published_at" }, { column: "d.id" }])
    .limit(50);
  const deliveries = rows.map((r: any) => ({
    delivery_id: r.id as string,
    network: r.network as Network,
    ...savedCounters(r, POST_METRICS),
  }));
  return {
    post_id: postId,
    // A published delivery without data yet (`none`) makes the post partial, never complete.
    coverage: postCoverage(deliveries.map((d) => d.coverage)),
    deliveries,
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
 * The coverage of a post from its published deliveries': `complete` only when every one is, `none` when none
 * is synced (or it has none), else `partial` (a delivery not synced yet, missing metrics or a failed sync).
 */
function postCoverage(coverages: readonly Coverage[]): Coverage {
  if (coverages.length === 0) return "none";
  if (coverages.every((c) => c === "complete")) return "complete";
  if (coverages.every((c) => c === "none")) return "none";
  return "partial";
}

/**
 * The owner's published posts with the most saved views (service spec 2.7: top content; `ranked_by:
 * "views"`), at most 5: a post's views are the sum of the saved views of its published deliveries (those
 * with view data: ranking uses available views only), so one post published to three networks takes one
 * place, with its per-network detail in `deliveries` (views, publication time, coverage, source). Optionally
 * within a publication window [published_from, published_to] (the deliveries published in it) and on one
 * network (only that network's deliveries count). Ties: the most recently first published first.
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
  /** The published deliveries of live posts in the window and network, with their metrics row if any. */
  const published = () => {
    const q = db("deliveries as d")
      .leftJoin("post_metrics as m", "m.delivery_id", "d.id")
      .join("social_accounts as a", "a.id", "d.social_account_id")
      .join("posts as p", "p.id", "d.post_id")
      .where(ownedBy(owner, "d"))
      .where("d.status", "published")
      .whereNotNull("d.published_at")
      .whereNull("p.deleted_at");
    if (from) q.where("d.published_at", ">=", from);
    if (to) q.where("d.published_at", "<=", to);
    if (f.network) q.where("a.network", f.network);
    return q;
  };
  /** The counted deliveries: those of `published` with saved views. */
  const counted = () => published().whereNotNull("m.views");
  const top: Array<{ post_id: string; views: string; first_published: Date }> = await counted()
    .groupBy("d.post_id")
    .select("d.post_id", db.raw("sum(m.views) as views"), db.raw("min(d.published_at) as first_published"))
    .orderBy([
      { column: "views", order: "desc" },
      { column: "first_published", order: "desc" },
      { column: "d.post_id" },
    ])
    .limit(limit);
  const rows =
    top.length === 0
      ? []
      : await counted()
          .whereIn(
            "d.post_id",
            top.map((t) => t.post_id),
          )
          .select(
            "d.id",
            "d.post_id",
            "d.published_at",
            "a.network",
            ...POST_METRICS.map((m) => `m.${m}`),
            ...STATUS_COLUMNS,
            "p.caption",
            "p.title",
          )
          .orderBy([{ column: "m.views", order: "desc" }, { column: "d.published_at" }, { column: "d.id" }]);
  // Published deliveries of the ranked posts without view data (never synced yet, or views not reported):
  // their views are not in the sum, so the post's coverage is partial, never complete.
  const uncounted = new Set<string>(
    top.length === 0
      ? []
      : (
          await published()
            .whereIn(
              "d.post_id",
              top.map((t) => t.post_id),
            )
            .whereNull("m.views")
            .distinct("d.post_id")
        ).map((r: { post_id: string }) => r.post_id),
  );
  return {
    items: top.map((t) => {
      const mine = rows.filter((r: any) => r.post_id === t.post_id);
      const deliveries = mine.map((r: any) => ({
        delivery_id: r.id as string,
        network: r.network as Network,
        views: Number(r.views),
        published_at: new Date(r.published_at).toISOString(),
        coverage: syncStatus(r, POST_METRICS).coverage,
        source: sourceOf(r),
      }));
      return {
        post_id: t.post_id,
        caption_excerpt: excerpt(mine[0]?.caption ?? mine[0]?.title),
        views: Number(t.views),
        published_at: new Date(t.first_published).toISOString(),
        coverage: uncounted.has(t.post_id) ? "partial" : postCoverage(deliveries.map((d) => d.coverage)),
        deliveries,
      };
    }),
    ranked_by: "views" as const,
    window: { published_from: from ? from.toISOString() : null, published_to: to ? to.toISOString() : null },
  };
}

/** The metrics sync status of one account, for the settings page. */
export interface AccountSyncStatus {
  /** The last successful sync, or null when none succeeded yet. */
  syncedAt: Date | null;
  /** Why the last sync failed (safe to show), or null when it succeeded. */
  lastError: string | null;
}

/** The metrics sync status of each of `accountIds` that the sync has tried (others are absent). */
export async function accountSyncStatuses(
  db: Knex,
  accountIds: readonly string[],
): Promise<Map<string, AccountSyncStatus>> {
  if (accountIds.length === 0) return new Map();
  const rows: Array<{ social_account_id: string; synced_at: Date | null; last_error: string | null }> =
    await db("account_metrics")
      .whereIn("social_account_id", accountIds)
      .select("social_account_id", "synced_at", "last_error");
  return new Map(rows.map((r) => [r.social_account_id, { syncedAt: r.synced_at, lastError: r.last_error }]));
}
