/**
 * Operator commands of the metrics sync (src/domain/analytics/sync.ts; docs/analytics.md "Runs"):
 * - `admin analytics sync --now`: plans a run now and works through it in this process (workers running at
 *   the same time may take some of its accounts); prints the run's time and, per network, accounts
 *   synced/failed and posts synced/failed. The reasons of failures are saved with the metrics (tools'
 *   `sync_error`, /settings/social), not printed.
 * - `admin analytics sync --status [--run KEY]`: prints the latest run (or the run KEY, e.g. the night
 *   `2026-11-27`): its key, time, accounts planned, done, failed, skipped, and `finished_at` (null while
 *   workers are still reading it).
 */
import type { AppContext } from "../context.ts";
import { type SyncReport, type SyncRun, syncAnalytics, syncRunStatus } from "../domain/analytics/sync.ts";
import { UsageError } from "./args.ts";

export const ANALYTICS_USAGE = "admin analytics sync --now | --status [--run KEY]";

/** What `--status` prints. */
export interface SyncRunStatus {
  run_key: string;
  synced_at: string;
  accounts_planned: number;
  accounts_done: number;
  accounts_failed: number;
  accounts_skipped: number;
  finished_at: string | null;
}

/**
 * Runs `admin analytics <verb>`. @returns the sync report (`--now`) or the run's progress (`--status`).
 * @throws UsageError for another verb or flag, a status asked when no run exists (or not that one), or a
 *   missing service context.
 */
export async function runAnalyticsAdmin(
  argv: string[],
  app?: AppContext,
): Promise<SyncReport | SyncRunStatus> {
  const [verb, ...rest] = argv;
  const now = verb === "sync" && rest.length === 1 && rest[0] === "--now";
  const status =
    verb === "sync" &&
    rest[0] === "--status" &&
    (rest.length === 1 || (rest.length === 3 && rest[1] === "--run" && rest[2]));
  if (!now && !status)
    throw new UsageError(
      `usage: ${ANALYTICS_USAGE} (the worker also runs the sync daily at midnight America/New_York)`,
    );
  if (!app) throw new UsageError("admin analytics sync needs the service context (run it through the CLI)");
  if (now) return syncAnalytics(app);
  const run = await syncRunStatus(app, rest[2]);
  if (!run)
    throw new UsageError(rest[2] ? `no analytics sync run ${rest[2]}` : "no analytics sync has run yet");
  return statusOf(run);
}

const statusOf = (run: SyncRun): SyncRunStatus => ({
  run_key: run.run_key,
  synced_at: new Date(run.synced_at).toISOString(),
  accounts_planned: run.accounts_planned,
  accounts_done: run.accounts_done,
  accounts_failed: run.accounts_failed,
  accounts_skipped: run.accounts_skipped,
  finished_at: run.finished_at ? new Date(run.finished_at).toISOString() : null,
});
