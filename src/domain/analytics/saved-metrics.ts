/**
 * The saved metrics rows of the analytics sync (service spec 2.7 analytics rules): one `account_metrics`
 * row per social account and one `post_metrics` row per published delivery, upserted (idempotent, safe to
 * run concurrently). A successful read saves the counters as of `synced_at` with their coverage and
 * `source` and clears `last_error` (or records why the network refused some counters, saved as null); a
 * failed read only records `last_error` and `attempted_at`, so the
 * previous counters and their `synced_at` stay (a first failure leaves `synced_at` null).
 */
import type { Knex } from "../../db/knex.ts";
import type { AccountCounters, PostCounters } from "../../providers/social/types.ts";

/** `network`: read from the network's API; `sandbox`: the sandbox connector's numbers (not real). */
export type MetricsSource = "network" | "sandbox";

export interface MetricCoverage {
  /** Metrics the network reported at `synced_at`. */
  available: string[];
  /** Metrics the network does not report (stored as null). */
  missing: string[];
}

/** Splits a counters object into its coverage (metric names sorted). */
export function coverageOf(counters: Record<string, number | null>): MetricCoverage {
  const keys = Object.keys(counters).sort();
  return {
    available: keys.filter((k) => counters[k] !== null),
    missing: keys.filter((k) => counters[k] === null),
  };
}

/** The owner columns and key of an account's row. */
export interface AccountKey {
  workspace_id: string;
  user_id: string;
  social_account_id: string;
}

/** The owner columns and keys of a delivery's row. */
export interface DeliveryKey {
  workspace_id: string;
  user_id: string;
  delivery_id: string;
  post_id: string;
}

const ACCOUNT_COUNTERS = ["followers", "views", "likes", "comments", "shares"] as const;
const POST_COUNTERS = ["views", "reach", "likes", "comments", "shares", "saves"] as const;
const SUCCESS = ["coverage", "source", "synced_at", "attempted_at", "last_error"] as const;
const FAILURE = ["attempted_at", "last_error"] as const;

/**
 * Saves an account's counters read at `at`; `note` (safe to show) is the read's sync error when the network
 * refused some counters (they are null), else the error is cleared.
 */
export async function saveAccountCounters(
  db: Knex,
  key: AccountKey,
  counters: AccountCounters,
  source: MetricsSource,
  at: Date,
  note?: string | undefined,
): Promise<void> {
  await db("account_metrics")
    .insert({ ...key, ...success(counters, source, at, note) })
    .onConflict("social_account_id")
    .merge([...ACCOUNT_COUNTERS, ...SUCCESS]);
}

/** Saves a delivery's counters read at `at`, with `note` as `saveAccountCounters`. */
export async function savePostCounters(
  db: Knex,
  key: DeliveryKey,
  counters: PostCounters,
  source: MetricsSource,
  at: Date,
  note?: string | undefined,
): Promise<void> {
  await db("post_metrics")
    .insert({ ...key, ...success(counters, source, at, note) })
    .onConflict("delivery_id")
    .merge([...POST_COUNTERS, ...SUCCESS]);
}

/** Records why reading an account failed at `at` (`reason` is safe to show); its saved counters stay. */
export async function saveAccountFailure(
  db: Knex,
  key: AccountKey,
  source: MetricsSource,
  reason: string,
  at: Date,
): Promise<void> {
  await db("account_metrics")
    .insert({ ...key, ...failure(source, reason, at) })
    .onConflict("social_account_id")
    .merge([...FAILURE]);
}

/** Records why reading a delivery failed at `at` (`reason` is safe to show); its saved counters stay. */
export async function savePostFailure(
  db: Knex,
  key: DeliveryKey,
  source: MetricsSource,
  reason: string,
  at: Date,
): Promise<void> {
  await db("post_metrics")
    .insert({ ...key, ...failure(source, reason, at) })
    .onConflict("delivery_id")
    .merge([...FAILURE]);
}

function success(
  counters: AccountCounters | PostCounters,
  source: MetricsSource,
  at: Date,
  note: string | undefined,
) {
  return {
    ...counters,
    coverage: JSON.stringify(coverageOf({ ...counters })),
    source,
    synced_at: at,
    attempted_at: at,
    last_error: note ? note.slice(0, 500) : null,
  };
}

function failure(source: MetricsSource, reason: string, at: Date) {
  return { source, synced_at: null, attempted_at: at, last_error: reason.slice(0, 500) };
}
