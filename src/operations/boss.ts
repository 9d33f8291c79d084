/**
 * pg-boss 12 on the service's own Postgres, in its own schema `pgboss` (DESIGN.md section 1, service spec
 * 1.12). One place decides the queue names and their retry and expiry settings.
 *
 * Settings (service spec 3.1 rule 4, 8): `retryLimit: 0` (pg-boss never redelivers a job on its own; a lost
 * job is recovered by maintenance, and the operation claim makes any duplicate delivery harmless) and
 * `expireInSeconds` = QUEUE_RETRY_AFTER_SECONDS (> 1800, validated in src/config/worker.ts), well above the operation
 * deadline, so pg-boss never treats a job that is still running as lost.
 */
import { randomUUID } from "node:crypto";
import { SPEC_LIMITS } from "../config/index.ts";
import { PgBoss } from "pg-boss";
import { logError } from "../log.ts";
import type { AppContext } from "../context.ts";

/** The pg-boss schema. */
export const BOSS_SCHEMA = "pgboss";
/** Queue of operations to execute; job data `{ operation_id }`. */
export const OPERATIONS_QUEUE = "operations";
/**
 * Queue of carousel render jobs; job data `{ run_id }` (src/operations/render.ts). The render runs apart from
 * the operation that accepted it, under its own lease on the run.
 */
export const RENDER_QUEUE = "carousel-render";
/** Scheduled every five minutes (service spec 6.3). */
export const MAINTENANCE_QUEUE = "operations-maintenance";
/** Scheduled daily at midnight America/New_York (service spec 6.3): the provider metrics sync. */
export const ANALYTICS_SYNC_QUEUE = "analytics-sync";
/**
 * One job per account of an analytics sync run (src/domain/analytics/sync.ts): data `{sync_job_id}`, the
 * singleton key `{run key}:{account}`; policy `exclusive`, so one job per key is waiting or active.
 */
export const ANALYTICS_ACCOUNT_QUEUE = "analytics-sync-account";

/**
 * Scheduled every minute: daily automation slots and due post schedules (src/operations/scheduler.ts).
 * Five minutes would start a 09:00 automation or schedule up to five minutes late.
 */
export const SCHEDULER_QUEUE = "scheduler";
/** Cron of the scheduler pass: every minute. */
export const SCHEDULER_CRON = "* * * * *";

/** Cron of the maintenance pass: every SPEC_LIMITS.maintenanceIntervalSeconds (five minutes). */
export const MAINTENANCE_CRON = `*/${SPEC_LIMITS.maintenanceIntervalSeconds / 60} * * * *`;
/** Cron of the analytics sync: midnight in ANALYTICS_SYNC_TZ. */
export const ANALYTICS_SYNC_CRON = "0 0 * * *";
export const ANALYTICS_SYNC_TZ = "America/New_York";

const stopping = new WeakSet<AppContext>();

/**
 * Marks `ctx` as shutting down: pg-boss errors (connections terminated while the process and, under
 * Ctrl-C, the embedded cluster stop) are then logged at debug level only, not as errors.
 */
export function quietBossErrors(ctx: AppContext): void {
  stopping.add(ctx);
}

/**
 * Creates (does not start) a pg-boss instance for `ctx`'s database.
 * `role` "producer" only sends jobs (serve processes): no supervision, no cron, no LISTEN connection.
 * `role` "worker" consumes, supervises (expiry, retention) and runs the cron schedules; any number of
 * workers may run, pg-boss coordinates them through the database.
 */
export function createBoss(ctx: AppContext, role: "producer" | "worker"): PgBoss {
  const url = ctx.config.databaseUrl;
  if (!url) throw new Error("pg-boss needs the database URL");
  const worker = role === "worker";
  const boss = new PgBoss({
    connectionString: url,
    schema: BOSS_SCHEMA,
    application_name: `social-mcp-${role}`,
    max: worker ? Math.min(4 + ctx.config.worker.concurrency, 20) : 4,
    supervise: worker,
    schedule: worker,
    migrate: true,
    useListenNotify: worker,
  });
  boss.on("error", bossErrorHandler(ctx));
  const states = bossStates(ctx);
  states.set(boss, "created");
  boss.on("stopped", () => states.set(boss, "stopped"));
  return boss;
}

type BossState = "created" | "started" | "stopped";
const bossesByContext = new WeakMap<AppContext, Map<PgBoss, BossState>>();

function bossStates(ctx: AppContext): Map<PgBoss, BossState> {
  let states = bossesByContext.get(ctx);
  if (!states) {
    states = new Map();
    bossesByContext.set(ctx, states);
  }
  return states;
}

/** Records that `boss` (made by `createBoss` for `ctx`) has started. */
export function markBossStarted(ctx: AppContext, boss: PgBoss): void {
  const states = bossStates(ctx);
  if (states.get(boss) === "created") states.set(boss, "started");
}

/**
 * Whether the pg-boss instances of `ctx` are started (src/observability/health.ts): `ok` when at least one
 * was made and every one made has started and none has stopped; else why not.
 */
export function bossReadiness(ctx: AppContext): "ok" | "not started" | "starting" | "stopped" {
  const states = [...(bossesByContext.get(ctx)?.values() ?? [])];
  if (states.length === 0) return "not started";
  if (states.includes("stopped")) return "stopped";
  if (states.includes("created")) return "starting";
  return "ok";
}

/**
 * pg-boss `error` events (connection loss, failed maintenance queries): logged with the error class, its
 * code and an error id only; message and stack (which may quote job data or SQL values), redacted, only at
 * debug level under the same id.
 */
export function bossErrorHandler(ctx: AppContext): (err: Error) => void {
  return (err) => {
    // Connections lost while stopping (quietBossErrors) are expected: debug only, never an error line.
    if (stopping.has(ctx)) ctx.log.debug({ errName: err?.name }, "pg-boss error while stopping");
    else logError(ctx.log, err, { errorId: randomUUID() }, "pg-boss error");
  };
}

/** Creates the queues (idempotent) and brings their settings in line with the configuration. */
export async function ensureQueues(ctx: AppContext, boss: PgBoss): Promise<void> {
  const operations = {
    retryLimit: 0,
    expireInSeconds: ctx.config.worker.queueRetryAfterSeconds,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
  };
  await boss.createQueue(OPERATIONS_QUEUE, operations);
  await boss.updateQueue(OPERATIONS_QUEUE, operations);
  // Render jobs: never redelivered by pg-boss either (a lost render is found by its lease or by maintenance).
  await boss.createQueue(RENDER_QUEUE, operations);
  await boss.updateQueue(RENDER_QUEUE, operations);
  // Scheduled jobs: one attempt each; the next tick is the retry. The maintenance pass is bounded well below
  // the interval.
  const scheduled = { retryLimit: 0, expireInSeconds: 15 * 60, deleteAfterSeconds: 24 * 3600 };
  await boss.createQueue(MAINTENANCE_QUEUE, scheduled);
  await boss.createQueue(ANALYTICS_SYNC_QUEUE, { ...scheduled, expireInSeconds: 3 * 3600 });
  // Account jobs of a sync run: never redelivered by pg-boss (a lost job is found by its lease).
  await boss.createQueue(ANALYTICS_ACCOUNT_QUEUE, { ...operations, policy: "exclusive" });
  // Scheduled automation runs generate content inside the pass: allow an hour (one tick's job may overlap
  // the next ones; the slot claims keep every run single).
  await boss.createQueue(SCHEDULER_QUEUE, { ...scheduled, expireInSeconds: 3600 });
}
