/** Shared by the queued carousel handlers: the run bookkeeping a carousel accept needs from the context. */
import type { RunMeta } from "../../domain/carousels.ts";
import type { Knex } from "../../db/knex.ts";
import type { ToolContext } from "../../runtime/types.ts";

/** Operation id, clock, sealer and the operation deadline of `ctx`. */
export function runMeta(ctx: ToolContext): RunMeta {
  return {
    operationId: ctx.operationId,
    now: ctx.app.clock.now(),
    sealer: ctx.app.sealer,
    deadlineSeconds: ctx.app.config.worker.operationDeadlineSeconds,
  };
}

/** The run id returned by `accept`, or the error for a worker call without one. */
export function acceptedRun(accepted: { post_id: string; run_id: string } | undefined): {
  post_id: string;
  run_id: string;
} {
  if (!accepted) throw new Error("queued carousel handler executed without its accepted run");
  return accepted;
}

/**
 * The caller's transaction of an `accept` part (runtime/types.ts: `ctx.db` is a transaction there).
 * @throws Error when called outside a transaction (credits must be charged atomically with the records).
 */
export function transactionOf(ctx: ToolContext): Knex.Transaction {
  const db = ctx.db as Knex.Transaction & { isTransaction?: boolean };
  if (!db.isTransaction) throw new Error("accept must run inside the caller's transaction");
  return db;
}
