/**
 * Carousel render jobs in the worker (service spec 3.1 rules 2 and 4; docs/operations.md "Carousel render
 * jobs"): the `carousel-render` queue carries `{ run_id }`. The operation that accepted the run has already
 * succeeded; the render is a native job of its own:
 * 1. claim the run under a lease (src/domain/carousels/render-job.ts `claimRender`); a duplicate job or a
 *    second worker finds nothing to claim;
 * 2. render its slides (src/domain/carousels/run.ts `executeCarouselRun`), extending the lease every third of
 *    WORKER_LEASE_SECONDS; a lost lease (the run was taken over) aborts this render;
 * 3. the run ends `succeeded` or `failed` (set by the render); an unexpected error fails the run with a safe
 *    reason, its unfinished slides left for retry_carousel; a worker that stops gives the run back (`queued`,
 *    job sent again) so that another worker continues from the slides already ready.
 * A worker that dies mid-render leaves an expired lease: `reapExpiredRenders` (every worker, with the
 * operation leases, src/operations/leases.ts) puts the run back and sends its job again. Slides already
 * ready are never rendered again and credits were charged once, at accept.
 */
import type { AppContext } from "../context.ts";
import {
  claimRender,
  endRenderLease,
  extendRenderLease,
  failRender,
  releaseRender,
  requeueExpiredRenders,
  sendRenderJob,
  strandedRenders,
} from "../domain/carousels/render-job.ts";
import { executeCarouselRun } from "../domain/carousels/run.ts";
import { measureRender } from "../observability/metrics.ts";

export interface RenderResult {
  /** False when the claim found nothing (another worker holds the run, or it is finished). */
  claimed: boolean;
  /** The run's status afterwards (when claimed). */
  status?: string;
}

/**
 * Claims and renders carousel run `runId`. Never throws for render failures (they become the run's state);
 * database errors propagate (the lease then runs out and another worker takes the run over).
 * `signal`: the worker is stopping (the run is given back).
 */
export async function processCarouselRender(
  ctx: AppContext,
  runId: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<RenderResult> {
  const leaseSeconds = ctx.config.worker.leaseSeconds;
  const claim = await claimRender(ctx.db, runId, ctx.clock.now(), leaseSeconds);
  if (!claim) {
    ctx.log.info({ run_id: runId }, "carousel render not claimable (duplicate job or already taken)");
    return { claimed: false };
  }
  const log = ctx.log.child({ run_id: runId, post_id: claim.post_id, attempt: claim.attempt });
  const lost = new AbortController();
  const signal = options.signal ? AbortSignal.any([lost.signal, options.signal]) : lost.signal;
  const beat = setInterval(
    () => {
      extendRenderLease(ctx.db, claim, ctx.clock.now(), leaseSeconds)
        .then((held) => {
          if (!held) lost.abort(new Error("render lease lost"));
        })
        .catch(() => {});
    },
    (leaseSeconds * 1000) / 3,
  );
  beat.unref();
  log.info("carousel render running");
  try {
    const owner = { userId: claim.user_id, workspaceId: claim.workspace_id };
    const outcome = await measureRender(`carousel:${claim.design_id}`, () =>
      executeCarouselRun(ctx, owner, runId, { signal }),
    );
    await endRenderLease(ctx.db, claim);
    log.info({ status: outcome.status, slides_failed: outcome.slides_failed }, "carousel render finished");
    return { claimed: true, status: outcome.status };
  } catch (err) {
    if (lost.signal.aborted) {
      log.warn("carousel render stopped: its lease was taken over");
      return { claimed: true, status: await statusOf(ctx, runId) };
    }
    if (options.signal?.aborted) {
      // This worker is stopping: another one continues from the slides already ready.
      if (await releaseRender(ctx.db, claim, ctx.clock.now())) await sendRenderJob(ctx, runId);
      log.info("carousel render given back: the worker is stopping");
      return { claimed: true, status: await statusOf(ctx, runId) };
    }
    log.error({ errName: (err as Error)?.name }, "carousel render stopped unexpectedly");
    await failRender(
      ctx.db,
      claim,
      "the render stopped unexpectedly; retry_carousel renders the unfinished slides",
      ctx.clock.now(),
    );
    return { claimed: true, status: await statusOf(ctx, runId) };
  } finally {
    clearInterval(beat);
  }
}

async function statusOf(ctx: AppContext, runId: string): Promise<string | undefined> {
  return (await ctx.db("carousel_runs").where({ id: runId }).first("status"))?.status;
}

/**
 * Puts renders whose worker died back in the queue (or fails them after too many takeovers) and sends their
 * jobs again. Called with the operation lease reaper. @returns the runs requeued and failed.
 */
export async function reapExpiredRenders(ctx: AppContext): Promise<{ requeued: string[]; failed: string[] }> {
  const report = await requeueExpiredRenders(ctx.db, ctx.clock.now());
  for (const id of report.requeued) await sendRenderJob(ctx, id);
  if (report.requeued.length + report.failed.length > 0)
    ctx.log.warn(
      { requeued: report.requeued.length, failed: report.failed.length },
      "expired carousel render leases reaped",
    );
  return report;
}

/**
 * Sends again the render jobs of runs handed over before `before` and still waiting (a lost job).
 * @returns how many were sent.
 */
export async function redispatchStrandedRenders(ctx: AppContext, before: Date): Promise<number> {
  let sent = 0;
  for (const id of await strandedRenders(ctx.db, before)) if (await sendRenderJob(ctx, id)) sent += 1;
  return sent;
}
