/**
 * The operation worker (service spec 3.1, 6.3, 8, DESIGN.md section 3): consumes the `operations` queue
 * and the carousel render jobs (`carousel-render`, ./render.ts), runs the maintenance pass every five
 * minutes, the scheduler pass (daily automation slots, due post schedules) every minute and the provider metrics sync (src/domain/analytics/sync.ts) daily at midnight
 * America/New_York, and steps due deliveries continuously in its delivery loop (./deliveries.ts). Any number of worker processes may run (`social-mcp worker`); each job is executed at
 * most once thanks to the claim in src/operations/execute.ts, and pg-boss creates each scheduled job once
 * per tick across all of them.
 */
import type { Job, PgBoss } from "pg-boss";
import type { AppContext } from "../context.ts";
import { contextOf, inSpan, SpanKind, tracer } from "../observability/tracing.ts";
import {
  requeueExpiredSyncJobs,
  resumeSyncRuns,
  runSyncJob,
  type SendSyncJob,
  startNightlyRun,
} from "../domain/analytics/sync.ts";
import {
  ANALYTICS_ACCOUNT_QUEUE,
  ANALYTICS_SYNC_CRON,
  ANALYTICS_SYNC_QUEUE,
  ANALYTICS_SYNC_TZ,
  createBoss,
  ensureQueues,
  MAINTENANCE_CRON,
  markBossStarted,
  MAINTENANCE_QUEUE,
  OPERATIONS_QUEUE,
  RENDER_QUEUE,
  SCHEDULER_CRON,
  SCHEDULER_QUEUE,
} from "./boss.ts";
import { runDeliveryLoop } from "./deliveries.ts";
import { failCrashedAutomationRuns } from "../domain/automations/crashed-runs.ts";
import { processOperation } from "./execute.ts";
import { reapExpiredLeases } from "./leases.ts";
import { processCarouselRender, reapExpiredRenders } from "./render.ts";
import { runMaintenance } from "./maintenance.ts";
import { runSchedulerPass } from "./scheduler.ts";
import type { ToolLookup } from "./tools.ts";

export interface StartedWorker {
  stop(): Promise<void>;
}

export interface WorkerOptions {
  /** Tool lookup for this worker (tests); default: the generated registry. */
  lookup?: ToolLookup;
  /** Register the schedules (default true). */
  schedules?: boolean;
  /** Run the delivery loop (./deliveries.ts; default true). */
  deliveries?: boolean;
}

/** How long `stop()` lets the delivery steps under way finish before aborting their network calls, ms. */
const DELIVERY_STOP_GRACE_MS = 10_000;

/**
 * Starts consuming queued operations (WORKER_CONCURRENCY at a time) and the maintenance schedule, on its
 * own pg-boss instance.
 * @throws when Postgres is unreachable at start.
 */
export async function startWorker(ctx: AppContext, options: WorkerOptions = {}): Promise<StartedWorker> {
  const boss = createBoss(ctx, "worker");
  await boss.start();
  markBossStarted(ctx, boss);
  await ensureQueues(ctx, boss);
  const processOptions = options.lookup ? { lookup: options.lookup } : {};
  // Operations and carousel renders: each job names one record; a job completes whatever happens (pg-boss
  // never redelivers it: no blind replay). An operation left `running` becomes `outcome_unknown` (its lease
  // or deadline); a render left `running` is taken over from its checkpoints when its lease runs out.
  await consume(ctx, boss, OPERATIONS_QUEUE, "operation_id", (id, signal) =>
    processOperation(ctx, id, { ...processOptions, signal }),
  );
  await consume(ctx, boss, RENDER_QUEUE, "run_id", (id, signal) =>
    processCarouselRender(ctx, id, { signal }),
  );
  await boss.work(MAINTENANCE_QUEUE, { pollingIntervalSeconds: 10 }, async () => {
    await runMaintenance(ctx);
  });
  await boss.work(SCHEDULER_QUEUE, { pollingIntervalSeconds: 5 }, async () => {
    await runSchedulerPass(ctx);
  });
  // The metrics sync: the nightly job plans the night's run and sends one job per account; every worker
  // takes account jobs; a job whose lease ran out is queued again by any worker's reaper.
  const sendSyncJob: SendSyncJob = (jobId, singletonKey) =>
    boss.send(ANALYTICS_ACCOUNT_QUEUE, { sync_job_id: jobId }, { singletonKey });
  await consume(
    ctx,
    boss,
    ANALYTICS_ACCOUNT_QUEUE,
    "sync_job_id",
    (id, signal) => runSyncJob(ctx, id, { signal }),
    ctx.config.analytics.syncConcurrency,
  );
  await boss.work(ANALYTICS_SYNC_QUEUE, { pollingIntervalSeconds: 10 }, async () => {
    ctx.log.info("analytics sync started");
    await startNightlyRun(ctx, sendSyncJob);
  });
  await resumeSyncRuns(ctx, sendSyncJob);
  if (options.schedules !== false) {
    await boss.schedule(MAINTENANCE_QUEUE, MAINTENANCE_CRON, null, { tz: "UTC" });
    await boss.schedule(SCHEDULER_QUEUE, SCHEDULER_CRON, null, { tz: "UTC" });
    await boss.schedule(ANALYTICS_SYNC_QUEUE, ANALYTICS_SYNC_CRON, null, { tz: ANALYTICS_SYNC_TZ });
  }
  // Dead workers are found by their leases, every third of a lease, on every worker: their operations become
  // outcome_unknown (src/operations/leases.ts), their carousel renders go to another worker (./render.ts),
  // their automation runs end failed (src/domain/automations/crashed-runs.ts).
  const reaper = setInterval(
    () => {
      Promise.all([
        reapExpiredLeases(ctx),
        reapExpiredRenders(ctx),
        failCrashedAutomationRuns(ctx),
        requeueExpiredSyncJobs(ctx).then((ids) => (ids.length > 0 ? resumeSyncRuns(ctx, sendSyncJob) : 0)),
      ]).catch((err) =>
        ctx.log.warn({ errName: (err as Error)?.name }, "lease reaping failed; next pass retries"),
      );
    },
    (ctx.config.worker.leaseSeconds * 1000) / 3,
  );
  reaper.unref();
  // Due deliveries: every worker steps them continuously (leases keep each step single across workers).
  const stopDeliveries = new AbortController();
  const abortSteps = new AbortController();
  const deliveryLoop =
    options.deliveries === false
      ? Promise.resolve()
      : runDeliveryLoop(ctx, { signal: stopDeliveries.signal, stepSignal: abortSteps.signal });
  ctx.log.info({ concurrency: ctx.config.worker.concurrency }, "operation worker started");
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(reaper);
      // No new delivery step; the steps under way finish (a create is not cut mid-way) unless they take
      // longer than the grace, then their network calls are aborted (the next step reconciles).
      stopDeliveries.abort();
      const grace = setTimeout(() => abortSteps.abort(), DELIVERY_STOP_GRACE_MS);
      await deliveryLoop;
      clearTimeout(grace);
      await boss.stop({ graceful: true, close: true, timeout: 10_000 });
    },
  };
}

/**
 * Consumes `queue` (`concurrency` at a time, default WORKER_CONCURRENCY), calling `run(id, signal)` with the job's `key` field.
 * A job without that id is logged and skipped; a failure of `run` is logged by class only, and the job
 * completes.
 */
async function consume(
  ctx: AppContext,
  boss: PgBoss,
  queue: string,
  key: "operation_id" | "run_id" | "sync_job_id",
  run: (id: string, signal: AbortSignal) => Promise<unknown>,
  concurrency = ctx.config.worker.concurrency,
): Promise<void> {
  await boss.work<Record<string, unknown>>(
    queue,
    {
      localConcurrency: concurrency,
      batchSize: 1,
      // NOTIFY wakes idle pollers at once; under a burst of approvals a single worker process still misses
      // wake-ups (bench/approval-latency.ts), so the poll floor is pg-boss's minimum: one cheap SKIP LOCKED
      // fetch per poller every 0.5 s when idle.
      pollingIntervalSeconds: 0.5,
      notifyPollingIntervalSeconds: 0.5,
    },
    async (jobs: Job<Record<string, unknown>>[]) => {
      for (const job of jobs) {
        const id = job.data?.[key];
        if (typeof id !== "string") {
          ctx.log.warn({ job_id: job.id, queue }, `${queue} job without ${key} ignored`);
          continue;
        }
        try {
          // While tracing is on, the job's execution continues the trace of the call that queued it.
          if (tracer)
            await inSpan(
              `process ${queue}`,
              {
                "messaging.operation.type": "process",
                "messaging.destination.name": queue,
                "messaging.message.id": job.id,
                [`social_mcp.${key}`]: id,
              },
              () => run(id, job.signal),
              contextOf(job.data?.traceparent),
              SpanKind.CONSUMER,
            );
          else await run(id, job.signal);
        } catch (err) {
          ctx.log.error({ [key]: id, queue, errName: (err as Error)?.name }, `${queue} job failed`);
        }
      }
    },
  );
}
