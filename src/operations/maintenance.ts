/**
 * The maintenance pass (service spec 3.1, 6.3, 8), scheduled every five minutes through pg-boss (one job
 * per tick across all workers) and callable directly (tests inject `ctx.clock`):
 * 1. approvals older than APPROVAL_TTL_SECONDS (30 min) -> `denied`;
 * 2. operations stranded in `approved`/`queued` for more than STRANDED_AFTER_SECONDS (10 min) since their
 *    last dispatch, and every `dispatch_failed` one -> dispatched again (the claim keeps it exactly-once);
 * 3. `running` past its deadline -> `outcome_unknown` (never replayed);
 * 4. expired rows of the shared rate-limit table deleted.
 */
import type { AppContext } from "../context.ts";
import { dispatchOperation } from "./dispatch.ts";

export interface MaintenanceReport {
  /** Approvals moved to `denied` because they expired. */
  expired: number;
  /** Operations sent to the queue again. */
  redispatched: number;
  /** Of those, how many are still `dispatch_failed`. */
  redispatchFailed: number;
  /** `running` operations moved to `outcome_unknown`. */
  overdue: number;
  /** Rate-limit rows deleted. */
  rateLimitRows: number;
}

/** At most this many operations are redispatched per pass (the next pass takes the rest). */
const REDISPATCH_BATCH = 500;

/** Runs one maintenance pass at `ctx.clock.now()`. Safe to run concurrently with itself and with workers. */
export async function runMaintenance(ctx: AppContext): Promise<MaintenanceReport> {
  const now = ctx.clock.now();
  const { worker } = ctx.config;

  const expired = await ctx
    .db("operations")
    .where({ state: "approval_required" })
    .where("approval_expires_at", "<=", now)
    .update({
      state: "denied",
      decided_at: now,
      updated_at: now,
      error_message: "The approval request expired before it was approved.",
    });

  const strandedBefore = new Date(now.getTime() - worker.strandedAfterSeconds * 1000);
  const stranded = (await ctx
    .db("operations")
    .where((q) =>
      q
        .where((s) =>
          s
            .whereIn("state", ["approved", "queued"])
            .whereRaw("coalesce(queued_at, decided_at, created_at) < ?", [strandedBefore]),
        )
        .orWhere({ state: "dispatch_failed" }),
    )
    .orderBy("updated_at")
    .limit(REDISPATCH_BATCH)
    .select("id")) as Array<{ id: string }>;
  let redispatchFailed = 0;
  for (const { id } of stranded) {
    const state = await dispatchOperation(ctx, id);
    if (state === "dispatch_failed") redispatchFailed += 1;
  }

  const overdue = await ctx
    .db("operations")
    .where({ state: "running" })
    .where("deadline_at", "<", now)
    .update({
      state: "outcome_unknown",
      error_code: "outcome_unknown",
      error_message:
        "The worker stopped or the operation ran past its deadline; inspect existing records before retrying.",
      finished_at: now,
      updated_at: now,
    });

  const rateLimitRows = await ctx.db("rate_limits").where("expire", "<", now.getTime()).delete();

  const report = { expired, redispatched: stranded.length, redispatchFailed, overdue, rateLimitRows };
  ctx.log.info(report, "maintenance pass");
  return report;
}
