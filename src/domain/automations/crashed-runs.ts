/**
 * Automation runs whose worker died (service spec 3.1 "worker stopped", rule 4; docs/operations.md
 * "Automation runs that lose their worker"). A run (`runAutomation`, ./run.ts) generates inside the process
 * that started it (a `run_automation` operation or the scheduler's pass) under a lease on its
 * `automation_runs` row (`lease_expires_at`, WORKER_LEASE_SECONDS, extended every third of it). A run whose
 * lease ran out lost its process: it is never resumed or run again, it ends `failed`, and its error says what
 * it may already have created (outcome_unknown semantics: inspect before running again):
 * - a video run: when its post exists, the video was stored; the post is kept as a draft, nothing is
 *   published or refunded. Without a post no video came out of it: its credits are refunded, as for a failed
 *   render (the existing rule), once (`credit_ledger_refund_once`); frames it generated may be in the media
 *   library.
 * - a carousel run: the carousel run it owns (rendered inside it, without a render lease) ends with it:
 *   one still `queued` never started and is refunded (the rule of src/domain/carousels/settle.ts); one
 *   `running` is `failed`, its ready slides kept, its others `failed` for retry_carousel, nothing refunded
 *   (a started carousel run is never refunded).
 * Every move is one conditional UPDATE (`status = 'running' AND lease_expires_at < now`), so reapers on
 * several workers, and the run's own process if it was only paused, never both settle a run. The lease's
 * other side, taken and extended by the run's own process, is `runLeaseEnd` / `holdRunLease` (below).
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";

/** Runs settled per pass at most (the next pass takes the rest). */
const BATCH = 100;

interface CrashedRun {
  id: string;
  user_id: string;
  workspace_id: string;
  kind: "video" | "carousel";
  credits_charged: number;
  operation_id: string | null;
  post_id: string | null;
}

/**
 * Ends every `running` automation run whose lease ran out before `ctx.clock.now()` (see the module comment).
 * Called by every worker's lease reaper and by the maintenance pass. @returns the ids of the runs ended.
 */
export async function failCrashedAutomationRuns(ctx: AppContext): Promise<string[]> {
  const now = ctx.clock.now();
  const expired: Array<{ id: string }> = await ctx
    .db("automation_runs")
    .where({ status: "running" })
    .where("lease_expires_at", "<", now)
    .orderBy("lease_expires_at")
    .limit(BATCH)
    .select("id");
  const ended: string[] = [];
  for (const { id } of expired) {
    const done = await ctx.db.transaction(async (trx) => {
      const [run] = (await trx("automation_runs")
        .where({ id, status: "running" })
        .where("lease_expires_at", "<", now)
        .update({ status: "failed", lease_expires_at: null, finished_at: now, updated_at: now })
        .returning([
          "id",
          "user_id",
          "workspace_id",
          "kind",
          "credits_charged",
          "operation_id",
          "post_id",
        ])) as CrashedRun[];
      if (!run) return false;
      const settled =
        run.kind === "carousel" ? await settleCarousel(trx, run, now) : await settleVideo(trx, run, now);
      await trx("automation_runs")
        .where({ id: run.id })
        .update({ error: settled.error.slice(0, 1000), post_id: settled.postId });
      return true;
    });
    if (done) ended.push(id);
  }
  if (ended.length > 0)
    ctx.log.warn({ runs: ended.length }, "automation runs whose worker stopped ended failed");
  return ended;
}

/** Inserts the refund of `run`'s credits once (the unique refund index makes a second one a no-op). */
async function refundOnce(
  trx: Knex.Transaction,
  run: CrashedRun,
  credits: number,
  reason: string,
  referenceId: string,
  now: Date,
): Promise<void> {
  if (credits <= 0) return;
  await trx.raw(
    `insert into credit_ledger (user_id, workspace_id, delta, reason, reference_id, operation_id, created_at)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (reference_id) where reason like 'refund:%' and reference_id is not null do nothing`,
    [run.user_id, run.workspace_id, credits, reason, referenceId, run.operation_id, now],
  );
}

const STOPPED = "the worker running this automation run stopped before it finished";

/** A video run: kept post (no refund) or no video (refunded as a failed render). */
async function settleVideo(
  trx: Knex.Transaction,
  run: CrashedRun,
  now: Date,
): Promise<{ error: string; postId: string | null }> {
  const post = await trx("posts").where({ automation_run_id: run.id }).first("id");
  if (post)
    return {
      postId: post.id,
      error: `${STOPPED}, after its video was stored: the post ${post.id} is kept as a draft and was not published; nothing was refunded. Check it before running the automation again.`,
    };
  const credits = Number(run.credits_charged ?? 0);
  await refundOnce(trx, run, credits, "refund:run_automation", run.id, now);
  return {
    postId: null,
    error: `${STOPPED}; no video was stored${credits > 0 ? ` and the ${credits} credits were refunded` : ""}. Frames it generated may be in the media library. Run the automation again.`,
  };
}

/** A carousel run: the carousel run it owns ends with it (refunded only when it never started). */
async function settleCarousel(
  trx: Knex.Transaction,
  run: CrashedRun,
  now: Date,
): Promise<{ error: string; postId: string | null }> {
  if (!run.post_id)
    return { postId: null, error: `${STOPPED}; nothing was generated. Run the automation again.` };
  // The carousel run rendered inside this automation run: no render lease, never handed to the render queue.
  const carousel = await trx("carousel_runs")
    .where({ post_id: run.post_id, kind: "generate" })
    .whereIn("status", ["queued", "running"])
    .whereNull("render_dispatched_at")
    .first("id", "status", "credits_charged");
  if (!carousel)
    return {
      postId: run.post_id,
      error: `${STOPPED}; its carousel (post ${run.post_id}) had finished generating and was not published. Check it before running the automation again.`,
    };
  const reason = "the automation run generating it stopped";
  await trx("carousel_runs")
    .where({ id: carousel.id })
    .update({ status: "failed", error: reason, lease_expires_at: null, updated_at: now });
  await trx("carousel_slides")
    .where({ run_id: carousel.id })
    .whereIn("status", ["pending", "generating"])
    .update({ status: "failed", error: reason, updated_at: now });
  if (carousel.status === "queued") {
    const credits = Number(carousel.credits_charged ?? 0);
    await refundOnce(trx, run, credits, "refund:carousel_run", carousel.id, now);
    return {
      postId: run.post_id,
      error: `${STOPPED}, before its carousel (post ${run.post_id}) started; the ${credits} credits were refunded. Run the automation again.`,
    };
  }
  const ready = await trx("carousel_slides")
    .where({ post_id: run.post_id, status: "ready" })
    .count({ n: "*" });
  return {
    postId: run.post_id,
    error: `${STOPPED}, while its carousel (post ${run.post_id}) was generated: ${Number(ready[0]?.n ?? 0)} slides are ready and kept, the others failed (retry_carousel renders only those); nothing was published and, as the generation had started, nothing was refunded.`,
  };
}

/** The end of a run lease taken or extended at `at` (WORKER_LEASE_SECONDS). */
export function runLeaseEnd(app: AppContext, at: Date): Date {
  return new Date(at.getTime() + app.config.worker.leaseSeconds * 1000);
}

/**
 * Extends run `runId`'s lease every third of WORKER_LEASE_SECONDS while it has not run out (as the operation
 * and render leases do, docs/operations.md "Leases"); a heartbeat that finds it gone (ran out while this
 * process was paused, or reaped) aborts `lease`, which stops the generation. @returns the timer to clear.
 */
export function holdRunLease(app: AppContext, runId: string, lease: AbortController): NodeJS.Timeout {
  const beat = setInterval(
    () => {
      const at = app.clock.now();
      app
        .db("automation_runs")
        .where({ id: runId, status: "running" })
        .where("lease_expires_at", ">", at)
        .update({ lease_expires_at: runLeaseEnd(app, at) })
        .then((n) => {
          if (n === 0) lease.abort(new Error("automation run lease lost"));
        })
        .catch(() => {});
    },
    (app.config.worker.leaseSeconds * 1000) / 3,
  );
  beat.unref();
  return beat;
}
