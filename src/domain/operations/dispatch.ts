/**
 * Dispatch of an operation to the queue (service spec 3.1): `approved`/`queued`/`dispatch_failed` ->
 * `queued` with one more pg-boss job, or -> `dispatch_failed` when the queue is unavailable. Always called
 * after the operation's row is committed, never inside the transaction that created or approved it (a job
 * must not reach a worker before the row it names is visible).
 *
 * Sending a second job for the same operation is harmless: the worker's atomic claim lets only one delivery
 * run the handler (src/operations/claim.ts).
 */
import type { AppContext } from "../../context.ts";
import { countOperation } from "../../observability/metrics.ts";
import type { OperationState } from "./store.ts";

/**
 * Sends one job for `operationId` and records the outcome.
 * @returns the operation state afterwards: `queued` on success (or whatever a worker already moved it to),
 *   `dispatch_failed` when the queue failed. Never throws for a queue failure; database errors propagate.
 */
export async function dispatchOperation(
  ctx: AppContext,
  operationId: string,
): Promise<OperationState | undefined> {
  // The row says `queued` BEFORE the job exists: a worker that receives the job at once must find a
  // claimable row (approved/queued), never a `dispatch_failed` one it would skip, stranding the operation.
  const [queued] = (await ctx
    .db("operations")
    .where({ id: operationId })
    .whereIn("state", ["approved", "queued", "dispatch_failed"])
    .update({ state: "queued", queued_at: ctx.clock.now(), updated_at: ctx.clock.now() }, [
      "tool",
    ])) as Array<{
    tool: string;
  }>;
  if (queued) countOperation(queued.tool, "queued");
  let jobId: string;
  try {
    if (!ctx.queue) throw new Error("no queue in this process");
    jobId = await ctx.queue.dispatch(operationId);
  } catch (err) {
    ctx.log.warn(
      { operation_id: operationId, err: { name: (err as Error)?.name } },
      "operation dispatch failed",
    );
    const [failed] = (await ctx
      .db("operations")
      .where({ id: operationId })
      .whereIn("state", ["approved", "queued"])
      .update({ state: "dispatch_failed", updated_at: ctx.clock.now() }, ["tool"])) as Array<{
      tool: string;
    }>;
    if (failed) countOperation(failed.tool, "dispatch_failed");
    return currentState(ctx, operationId);
  }
  // A worker may already have claimed the job (state running or later): only the bookkeeping changes.
  await ctx
    .db("operations")
    .where({ id: operationId })
    .update({ job_id: jobId, dispatch_count: ctx.db.raw("dispatch_count + 1") });
  ctx.log.debug({ operation_id: operationId, job_id: jobId }, "operation dispatched");
  return currentState(ctx, operationId);
}

async function currentState(ctx: AppContext, id: string): Promise<OperationState | undefined> {
  const row = await ctx.db("operations").where({ id }).first("state");
  return row?.state as OperationState | undefined;
}
