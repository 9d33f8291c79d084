/**
 * The metrics read at scrape time (docs/operations.md "Metrics"), from the database all instances share:
 * pg-boss queue depth and the age of the oldest due job per queue, the nightly metrics sync's progress and
 * whether it missed its 06:00 America/New_York deadline, and this process's readiness. One read serves
 * every scrape within `SCRAPE_CACHE_MS`, so several Prometheus servers (or a dashboard refreshing) cost
 * the database one set of queries every few seconds. A read that fails leaves the families out of that
 * scrape (and counts `social_mcp_scrape_errors_total`) instead of failing it.
 */
import type * as PromClient from "prom-client";
import type { AppContext } from "../context.ts";
import { nightKey, type SyncRun, syncRunStatus } from "../domain/analytics/sync.ts";
import { lazyRequire } from "../lazy-require.ts";
import {
  ANALYTICS_ACCOUNT_QUEUE,
  ANALYTICS_SYNC_QUEUE,
  ANALYTICS_SYNC_TZ,
  BOSS_SCHEMA,
  MAINTENANCE_QUEUE,
  OPERATIONS_QUEUE,
  RENDER_QUEUE,
  SCHEDULER_QUEUE,
} from "../operations/boss.ts";
import { healthOf, READINESS_CHECKS, type ReadinessReport } from "./health.ts";
import { METRIC_PREFIX } from "./metrics.ts";

const promClient = lazyRequire<typeof PromClient>("prom-client");

/** How long one read of the scrape-time values serves later scrapes, milliseconds. */
export const SCRAPE_CACHE_MS = 5000;

/** The pg-boss queues of the service (src/operations/boss.ts): the `queue` label's values. */
export const QUEUES = [
  OPERATIONS_QUEUE,
  RENDER_QUEUE,
  MAINTENANCE_QUEUE,
  SCHEDULER_QUEUE,
  ANALYTICS_SYNC_QUEUE,
  ANALYTICS_ACCOUNT_QUEUE,
] as const;

/** The local hour by which the nightly sync (started at midnight America/New_York) should have finished. */
export const SYNC_DEADLINE_HOUR = 6;

interface QueueRow {
  name: string;
  queued: number;
  active: number;
  oldest: number | null;
}

interface Snapshot {
  /** Undefined when the queues could not be read. */
  queues: Map<string, QueueRow> | undefined;
  sync:
    | {
        done: number;
        failed: number;
        skipped: number;
        left: number;
        startedAt: Date;
        finishedAt: Date | null;
        deadlineMissed: boolean;
      }
    | undefined;
  /** False when the sync run could not be read. */
  syncRead: boolean;
  readiness: ReadinessReport;
}

const hourIn = (at: Date, timeZone: string) =>
  Number(new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", hourCycle: "h23" }).format(at));

/**
 * Whether tonight's sync missed its deadline at `now`: past 06:00 America/New_York, the run keyed by today's
 * date there (`tonight`) is unfinished or finished after 06:00, or it does not exist although an earlier
 * nightly run does (no worker ran the nightly job; a service that never ran one is not late).
 */
export function syncDeadlineMissed(
  now: Date,
  tonight: { run_key: string; finished_at: Date | null } | undefined,
  earlierRun: boolean,
): boolean {
  if (hourIn(now, ANALYTICS_SYNC_TZ) < SYNC_DEADLINE_HOUR) return false;
  if (!tonight || tonight.run_key !== nightKey(now)) return earlierRun;
  if (!tonight.finished_at) return true;
  return (
    nightKey(tonight.finished_at) !== tonight.run_key ||
    hourIn(tonight.finished_at, ANALYTICS_SYNC_TZ) >= SYNC_DEADLINE_HOUR
  );
}

/**
 * Reads the scrape-time values; a part that cannot be read is left undefined and `onError` is called (the
 * readiness report never fails: a database that does not answer is its `postgres` check failing).
 */
async function readSnapshot(ctx: AppContext, onError: () => void): Promise<Snapshot> {
  const now = ctx.clock.now();
  const failed = () => {
    onError();
    return undefined;
  };
  const [queueRows, sync, readiness] = await Promise.all([
    (
      ctx.db.raw(
        `select name,
              count(*) filter (where state in ('created', 'retry') and start_after <= now())::int as queued,
              count(*) filter (where state = 'active')::int as active,
              extract(epoch from now() - min(start_after) filter (where state in ('created', 'retry')
                and start_after <= now()))::float8 as oldest
         from ${BOSS_SCHEMA}.job
        where name = any(?) and state in ('created', 'retry', 'active')
        group by name`,
        [[...QUEUES]],
      ) as Promise<{ rows: QueueRow[] }>
    ).catch(failed),
    syncRunStatus(ctx, nightKey(now))
      .then(
        async (tonight): Promise<SyncRun | undefined> =>
          tonight ??
          (await ctx
            .db("analytics_sync_runs")
            .whereRaw("run_key !~ '^now-'")
            .orderBy("created_at", "desc")
            .first()),
      )
      .then((r) => ({ run: r }), failed),
    healthOf(ctx).readiness(),
  ]);
  const run = sync?.run;
  return {
    queues: queueRows ? new Map(queueRows.rows.map((r) => [r.name, r])) : undefined,
    sync: run
      ? {
          done: run.accounts_done,
          failed: run.accounts_failed,
          skipped: run.accounts_skipped,
          left: Math.max(
            0,
            run.accounts_planned - run.accounts_done - run.accounts_failed - run.accounts_skipped,
          ),
          startedAt: run.synced_at,
          finishedAt: run.finished_at,
          // `run` is tonight's or, when tonight's is missing, the latest nightly run.
          deadlineMissed: syncDeadlineMissed(now, run, true),
        }
      : undefined,
    syncRead: sync !== undefined,
    readiness,
  };
}

/**
 * A registry of the scrape-time families of `ctx` (merged with the process's own by ./listeners.ts). Each
 * scrape reads the cached snapshot (one read per `SCRAPE_CACHE_MS`).
 */
export function scrapeRegistry(ctx: AppContext): PromClient.Registry {
  const { Registry, Gauge, Counter } = promClient();
  const registry = new Registry();
  let cached: { at: number; snapshot: Promise<Snapshot> } | undefined;
  const errors = new Counter({
    name: `${METRIC_PREFIX}scrape_errors_total`,
    help: "Scrapes whose database-backed values (queues, sync, readiness) could not be read.",
    registers: [registry],
  });
  const snapshot = (): Promise<Snapshot> => {
    const at = Date.now();
    if (!cached || at - cached.at >= SCRAPE_CACHE_MS)
      cached = { at, snapshot: readSnapshot(ctx, () => errors.inc()) };
    return cached.snapshot;
  };
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (g: PromClient.Gauge<string>, s: Snapshot) => void,
  ) =>
    new Gauge({
      name: METRIC_PREFIX + name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        fill(this, await snapshot());
      },
    });
  gauge(
    "queue_jobs",
    "pg-boss jobs per queue: queued (due, not yet taken) and active.",
    ["queue", "state"],
    (g, s) => {
      if (!s.queues) return;
      for (const q of QUEUES) {
        g.labels(q, "queued").set(s.queues.get(q)?.queued ?? 0);
        g.labels(q, "active").set(s.queues.get(q)?.active ?? 0);
      }
    },
  );
  gauge(
    "queue_oldest_job_age_seconds",
    "Age of the oldest due job waiting in each pg-boss queue (0 when none waits), seconds.",
    ["queue"],
    (g, s) => {
      if (s.queues) for (const q of QUEUES) g.labels(q).set(Math.max(0, s.queues.get(q)?.oldest ?? 0));
    },
  );
  gauge(
    "analytics_sync_accounts",
    "Accounts of the current nightly metrics sync run: done, failed, skipped and left.",
    ["state"],
    (g, s) => {
      if (!s.sync) return;
      for (const state of ["done", "failed", "skipped", "left"] as const) g.labels(state).set(s.sync[state]);
    },
  );
  gauge(
    "analytics_sync_run_started_timestamp_seconds",
    "When the current nightly sync run started (Unix time).",
    [],
    (g, s) => {
      if (s.sync) g.set(s.sync.startedAt.getTime() / 1000);
    },
  );
  gauge(
    "analytics_sync_run_finished_timestamp_seconds",
    "When the current nightly sync run finished (Unix time; 0 while it runs).",
    [],
    (g, s) => {
      if (s.sync) g.set(s.sync.finishedAt ? s.sync.finishedAt.getTime() / 1000 : 0);
    },
  );
  gauge(
    "analytics_sync_deadline_missed",
    "1 when tonight's metrics sync has not finished by 06:00 America/New_York, else 0.",
    [],
    (g, s) => {
      if (s.syncRead) g.set(s.sync?.deadlineMissed ? 1 : 0);
    },
  );
  gauge("ready", "1 when this process's /readyz answers 200, else 0.", [], (g, s) => {
    g.set(s.readiness.status === "ready" ? 1 : 0);
  });
  gauge("readiness_check", "1 when a readiness check of this process passes, else 0.", ["check"], (g, s) => {
    for (const c of READINESS_CHECKS) g.labels(c).set(s.readiness.checks?.[c]?.status === "ok" ? 1 : 0);
  });
  return registry;
}
