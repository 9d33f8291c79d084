/**
 * The per-minute scheduler pass (pg-boss schedule `scheduler`, one job per minute across all workers;
 * docs/operations.md): starts the automation runs of daily slots that came due
 * (src/domain/automations/schedule.ts) and publishes post schedules whose time has come
 * (src/domain/social/schedules.ts), refreshes social tokens about to expire and steps one pass of the
 * deliveries that are due (src/domain/social/refresh.ts, engine.ts; a backstop: every worker's delivery loop,
 * ./deliveries.ts, steps them continuously). All claim their rows, so overlapping passes on several workers never run a
 * slot or publish a schedule twice. The five-minute maintenance pass also publishes due schedules, as a
 * backstop when this job is late.
 */
import type { AppContext } from "../context.ts";
import { runDueAutomations, type SchedulePassReport } from "../domain/automations/schedule.ts";
import { runDueDeliveries } from "../domain/social/engine.ts";
import { refreshExpiringTokens } from "../domain/social/refresh.ts";
import { publishDueSchedules } from "../domain/social/schedules.ts";

/** Schedules published per pass (the next pass takes the rest). */
export const SCHEDULE_BATCH = 100;

export interface SchedulerReport {
  schedulesPublished: number;
  /** Deliveries stepped by the delivery pass (src/domain/social/engine.ts). */
  deliveriesStepped: number;
  automations: SchedulePassReport;
}

/**
 * Runs one scheduler pass at `ctx.clock.now()`. Both steps always run; when one fails the pass throws
 * afterwards (pg-boss marks the job failed, the next minute's job is the retry).
 */
export async function runSchedulerPass(ctx: AppContext): Promise<SchedulerReport> {
  const failures: string[] = [];
  let schedulesPublished = 0;
  try {
    schedulesPublished = await publishDueSchedules(ctx, SCHEDULE_BATCH);
  } catch (err) {
    failures.push("schedules");
    ctx.log.error({ errName: (err as Error)?.name }, "scheduler: publishing due schedules failed");
  }
  let deliveriesStepped = 0;
  try {
    await refreshExpiringTokens(ctx);
    deliveriesStepped = await runDueDeliveries(ctx);
  } catch (err) {
    failures.push("deliveries");
    ctx.log.error({ errName: (err as Error)?.name }, "scheduler: delivery pass failed");
  }
  let automations: SchedulePassReport | undefined;
  try {
    automations = await runDueAutomations(ctx, {
      concurrency: Math.max(1, Math.min(4, ctx.config.worker.concurrency)),
    });
  } catch (err) {
    failures.push("automations");
    ctx.log.error({ errName: (err as Error)?.name }, "scheduler: automation slots failed");
  }
  if (failures.length > 0 || !automations) throw new Error(`scheduler pass failed: ${failures.join(", ")}`);
  return { schedulesPublished, deliveriesStepped, automations };
}
