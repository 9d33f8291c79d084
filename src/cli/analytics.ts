/**
 * Operator command `admin analytics sync --now`: runs the metrics sync once, now (src/domain/analytics/sync.ts;
 * the worker runs it daily at midnight America/New_York), and prints its report: the run's time and, per
 * network, accounts synced/failed and posts synced/failed. The reasons of failures are saved with the
 * metrics (tools' `sync_error`, /settings/social), not printed.
 */
import type { AppContext } from "../context.ts";
import { type SyncReport, syncAnalytics } from "../domain/analytics/sync.ts";
import { UsageError } from "./args.ts";

export const ANALYTICS_USAGE = "admin analytics sync --now";

/**
 * Runs `admin analytics <verb>`. @returns the sync report.
 * @throws UsageError for another verb, a missing `--now` or a missing service context.
 */
export async function runAnalyticsAdmin(argv: string[], app?: AppContext): Promise<SyncReport> {
  const [verb, ...rest] = argv;
  if (verb !== "sync" || rest.length !== 1 || rest[0] !== "--now")
    throw new UsageError(
      `usage: ${ANALYTICS_USAGE} (the worker also runs the sync daily at midnight America/New_York)`,
    );
  if (!app) throw new UsageError("admin analytics sync needs the service context (run it through the CLI)");
  return syncAnalytics(app);
}
