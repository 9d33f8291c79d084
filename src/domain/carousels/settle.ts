/**
 * Carousel runs whose operation ended before the run started (service spec 3.1, 8 credits): a generation,
 * regeneration or retry charges its credits when it is accepted, and its run waits `queued` for the worker.
 * When the operation fails, is denied or becomes `outcome_unknown` before its handler handed the run to the
 * render queue (the connection was revoked, the worker stopped before the hand-over), no image was
 * generated: the run is closed `failed` with the reason, its waiting slides are marked `failed` so that
 * `retry_carousel` can take them, and the run's credits are refunded exactly once.
 */
import type { Knex } from "../../db/knex.ts";

export interface SettledRun {
  run_id: string;
  post_id: string;
  /** Credits given back (the run's `credits_charged`). */
  credits_refunded: number;
}

/**
 * Closes the still-`queued` carousel runs of operation `operationId` as `failed` with `reason` (a safe,
 * user-facing sentence) and refunds their credits. Idempotent: the conditional update claims each run once,
 * and the ledger's unique refund index (`credit_ledger_refund_once`) refuses a second refund of a run.
 * A run handed to the render queue (`render_dispatched_at`), `running` or finished is left alone: the render
 * job owns it (src/domain/carousels/render-job.ts).
 * @returns the runs settled by this call.
 */
export async function failUnstartedCarouselRuns(
  db: Knex,
  operationId: string,
  reason: string,
  now: Date,
): Promise<SettledRun[]> {
  return db.transaction(async (trx) => {
    const runs: Array<{
      id: string;
      post_id: string;
      user_id: string;
      workspace_id: string;
      credits_charged: number;
    }> = await trx("carousel_runs")
      .where({ operation_id: operationId, status: "queued" })
      .whereNull("render_dispatched_at")
      .update({ status: "failed", error: reason.slice(0, 300), updated_at: now })
      .returning(["id", "post_id", "user_id", "workspace_id", "credits_charged"]);
    for (const run of runs) {
      await trx("carousel_slides")
        .where({ run_id: run.id })
        .whereIn("status", ["pending", "generating"])
        .update({ status: "failed", error: "the run did not start", updated_at: now });
      const credits = Number(run.credits_charged ?? 0);
      if (credits > 0) {
        await trx.raw(
          `insert into credit_ledger (user_id, workspace_id, delta, reason, reference_id, operation_id, created_at)
           values (?, ?, ?, 'refund:carousel_run', ?, ?, ?)
           on conflict (reference_id) where reason like 'refund:%' and reference_id is not null do nothing`,
          [run.user_id, run.workspace_id, credits, run.id, operationId, now],
        );
      }
    }
    return runs.map((r) => ({
      run_id: r.id,
      post_id: r.post_id,
      credits_refunded: Number(r.credits_charged ?? 0),
    }));
  });
}

/**
 * Settles every carousel run left `queued` whose operation is final without having run it (`failed`,
 * `denied`, `outcome_unknown`); meant for the maintenance pass, which also catches operations that ended
 * through another path (deadline, revoked connection). @returns the number of runs settled.
 */
export async function settleStrandedCarouselRuns(db: Knex, now: Date, limit = 500): Promise<number> {
  const ops: Array<{ operation_id: string; error_message: string | null }> = await db("carousel_runs as r")
    .join("operations as o", "o.id", "r.operation_id")
    .where("r.status", "queued")
    .whereNull("r.render_dispatched_at")
    .whereIn("o.state", ["failed", "denied", "outcome_unknown"])
    .distinct("r.operation_id", "o.error_message")
    .limit(limit);
  let settled = 0;
  for (const op of ops) {
    const runs = await failUnstartedCarouselRuns(
      db,
      op.operation_id,
      `the operation ended before the run started${op.error_message ? `: ${op.error_message}` : ""}; its credits were refunded`,
      now,
    );
    settled += runs.length;
  }
  return settled;
}
