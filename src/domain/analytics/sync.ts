/**
 * The daily provider metrics sync (service spec 6.3: midnight America/New_York): pulls lifetime counters
 * from the social provider into `account_metrics` (per connected account) and `post_metrics` (per published
 * delivery, i.e. only content published through the service). Counters are saved as of `synced_at`;
 * a metric the network does not report is stored as null (missing), never 0, and listed in `coverage`.
 * An account or post the provider cannot read now keeps its previous saved values.
 */
import type { AppContext } from "../../context.ts";
import { providerAccount } from "../social/accounts.ts";

export interface MetricCoverage {
  /** Metrics the network reported at `synced_at`. */
  available: string[];
  /** Metrics the network does not report (stored as null). */
  missing: string[];
}

/** Splits a counters object into its coverage. */
export function coverageOf(counters: Record<string, number | null>): MetricCoverage {
  const keys = Object.keys(counters).sort();
  return {
    available: keys.filter((k) => counters[k] !== null),
    missing: keys.filter((k) => counters[k] === null),
  };
}

export interface SyncReport {
  accounts_synced: number;
  accounts_skipped: number;
  posts_synced: number;
  posts_skipped: number;
  synced_at: string;
}

/**
 * Syncs every social account and published delivery of every workspace. Safe to run concurrently with
 * itself (upserts keyed by account / delivery) and idempotent for a given provider state.
 * @param app the application context (database, sealer to open tokens, clock, logger).
 * @returns counts of synced and skipped records and the sync time.
 */
export async function syncAnalytics(app: AppContext): Promise<SyncReport> {
  const provider = app.providers.social;
  const syncedAt = app.clock.now();
  const report: SyncReport = {
    accounts_synced: 0,
    accounts_skipped: 0,
    posts_synced: 0,
    posts_skipped: 0,
    synced_at: syncedAt.toISOString(),
  };
  const accounts: Array<{ id: string; workspace_id: string; user_id: string }> = await app
    .db("social_accounts")
    .select("id", "workspace_id", "user_id")
    .orderBy("id");
  for (const a of accounts) {
    try {
      const account = await providerAccount(app.db, app.sealer, a.id);
      const counters = await provider.accountCounters(account);
      if (!counters) {
        report.accounts_skipped += 1;
        continue;
      }
      await app
        .db("account_metrics")
        .insert({
          workspace_id: a.workspace_id,
          user_id: a.user_id,
          social_account_id: a.id,
          ...counters,
          coverage: JSON.stringify(coverageOf({ ...counters })),
          synced_at: syncedAt,
        })
        .onConflict("social_account_id")
        .merge(["followers", "views", "likes", "comments", "shares", "coverage", "synced_at"]);
      report.accounts_synced += 1;
    } catch (err) {
      report.accounts_skipped += 1;
      app.log.warn(
        { social_account_id: a.id, err: { name: (err as Error)?.name } },
        "analytics sync: account failed",
      );
    }
  }
  const deliveries: Array<{
    id: string;
    workspace_id: string;
    user_id: string;
    post_id: string;
    social_account_id: string;
    provider_post_id: string | null;
  }> = await app
    .db("deliveries")
    .where({ status: "published" })
    .whereNotNull("provider_post_id")
    .select("id", "workspace_id", "user_id", "post_id", "social_account_id", "provider_post_id")
    .orderBy("id");
  for (const d of deliveries) {
    try {
      const account = await providerAccount(app.db, app.sealer, d.social_account_id);
      const counters = await provider.postCounters(account, d.provider_post_id!);
      if (!counters) {
        report.posts_skipped += 1;
        continue;
      }
      await app
        .db("post_metrics")
        .insert({
          workspace_id: d.workspace_id,
          user_id: d.user_id,
          delivery_id: d.id,
          post_id: d.post_id,
          ...counters,
          coverage: JSON.stringify(coverageOf({ ...counters })),
          synced_at: syncedAt,
        })
        .onConflict("delivery_id")
        .merge(["views", "likes", "comments", "shares", "saves", "coverage", "synced_at"]);
      report.posts_synced += 1;
    } catch (err) {
      report.posts_skipped += 1;
      app.log.warn({ delivery_id: d.id, err: { name: (err as Error)?.name } }, "analytics sync: post failed");
    }
  }
  app.log.info(report, "analytics sync finished");
  return report;
}
