/** Shared by the queued carousel handlers: the run bookkeeping a carousel accept needs from the context. */
import type { RunStatus } from "../../domain/runs.ts";
import { MAX_WAIT_SECONDS } from "../../domain/long-poll.ts";
import type { Accepted, RunMeta } from "../../domain/carousels/accept.ts";
import { handOverRun, sendRenderJob } from "../../domain/carousels/render-job.ts";
import { type Owner, ownerOf } from "../../domain/owner.ts";
import type { Knex } from "../../db/knex.ts";
import type { ToolContext, ToolOutput } from "../../tool-contract.ts";

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
 * The caller's transaction of an `accept` part (tool-contract.ts: `ctx.db` is a transaction there).
 * @throws Error when called outside a transaction (credits must be charged atomically with the records).
 */
export function transactionOf(ctx: ToolContext): Knex.Transaction {
  const db = ctx.db;
  if (!isTransaction(db)) throw new Error("accept must run inside the caller's transaction");
  return db;
}

/** True when `db` is a knex transaction (knex marks them with `isTransaction`). */
function isTransaction(db: Knex | Knex.Transaction): db is Knex.Transaction {
  return Reflect.get(db, "isTransaction") === true;
}

/**
 * The `accept` part of a queued carousel tool: runs the domain step `start` in the caller's transaction with
 * the caller as owner and this operation's run bookkeeping, and returns `{data: {post_id, run_id},
 * credits_charged, next}` (`next`: get_carousel with a long poll, 2 s later). @throws ToolError from `start`; Error outside a transaction (see `transactionOf`).
 */
export async function acceptCarouselRun<I>(
  input: I,
  ctx: ToolContext,
  start: (trx: Knex.Transaction, owner: Owner, input: I, meta: RunMeta) => Promise<Accepted>,
): Promise<ToolOutput<{ post_id: string; run_id: string }>> {
  const a = await start(transactionOf(ctx), ownerOf(ctx.auth), input, runMeta(ctx));
  return {
    data: { post_id: a.post_id, run_id: a.run_id },
    credits_charged: a.credits_charged,
    // The render is a native job of its own (service spec 3.1 rule 2): follow it in get_carousel.
    next: {
      tool: "get_carousel",
      arguments: { post_id: a.post_id, wait_seconds: MAX_WAIT_SECONDS },
      after_seconds: 2,
    },
  };
}

/**
 * The worker's `execute` part of a queued carousel tool (service spec 3.1 rule 2): hands the accepted run to
 * the render queue (a native job with its own lease and per-slide checkpoints, src/operations/render.ts) and
 * returns `{data: {post_id, run_id, status}}` at once, `status` being the run's status as handed over
 * (`queued`; another status when an earlier attempt had already handed it over). The operation succeeds without waiting for the slides: poll get_carousel. A job that could not be
 * sent is sent again by maintenance.
 * @throws Error without an accepted run.
 */
export async function handOverAcceptedRun(
  ctx: ToolContext,
  accepted: { post_id: string; run_id: string } | undefined,
): Promise<ToolOutput<{ post_id: string; run_id: string; status: RunStatus }>> {
  const { post_id, run_id } = acceptedRun(accepted);
  const handedOver = await handOverRun(ctx.app.db, run_id, ctx.app.clock.now());
  // The run's status as handed over, read before its render job is sent: read after, it depended on how
  // fast a worker took the job ("queued" or already "running").
  const run = await ctx.app.db("carousel_runs").where({ id: run_id }).first("status");
  if (handedOver) await sendRenderJob(ctx.app, run_id);
  return { data: { post_id, run_id, status: run?.status ?? "failed" } };
}
