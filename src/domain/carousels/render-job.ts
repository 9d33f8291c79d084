/**
 * The carousel render job's bookkeeping on `carousel_runs` (service spec 3.1 rules 2 and 4; docs/operations.md
 * "Carousel render jobs"). A generation, regeneration or retry operation creates the run (accept), hands it
 * to the render queue (`handOverRun`, from the operation's handler) and succeeds; the render then runs as its
 * own job, apart from the operation:
 * - a worker claims the run (`claimRender`: `queued` -> `running`, a lease of WORKER_LEASE_SECONDS,
 *   `render_attempts` + 1) and extends the lease while it renders (`extendRenderLease`); a worker that lost
 *   its lease stops;
 * - each finished slide is a checkpoint (`carousel_slides.status = ready`, its image stored): a run taken
 *   over renders only the slides not ready yet, and credits are charged once, at accept;
 * - a run whose lease ran out lost its worker: `requeueExpiredRenders` puts it back to `queued` for another
 *   worker (after MAX_RENDER_ATTEMPTS takeovers it is failed instead, its unfinished slides left for
 *   retry_carousel);
 * - a run handed over whose job was lost (still `queued` long after the hand-over) is found by
 *   `strandedRenders` and sent again.
 * Every move is one conditional UPDATE, so concurrent workers never both take a run.
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";

/** Takeovers of one run before it is failed rather than taken again (a render that kills its worker). */
export const MAX_RENDER_ATTEMPTS = 3;

/** A claimed render: the run, its owner and this claim's attempt number. */
export interface ClaimedRender {
  run_id: string;
  post_id: string;
  user_id: string;
  workspace_id: string;
  attempt: number;
  /** The run's design (src/providers/render/designs.ts `DESIGNS` id): the render's template in the metrics. */
  design_id: string;
}

const leaseEnd = (now: Date, leaseSeconds: number) => new Date(now.getTime() + leaseSeconds * 1000);

/**
 * Marks the `queued` run `runId` as handed to the render queue at `now` (a run handed over is no longer
 * refunded when its operation ends: the render job owns it). @returns false when the run is not waiting.
 */
export async function handOverRun(db: Knex, runId: string, now: Date): Promise<boolean> {
  const n = await db("carousel_runs")
    .where({ id: runId, status: "queued" })
    .update({ render_dispatched_at: now, updated_at: now });
  return n > 0;
}

/**
 * Claims the `queued` run `runId` for one worker: `running`, lease until now + `leaseSeconds`, one more
 * attempt. @returns the claim, or undefined when another worker holds it or it is finished.
 */
export async function claimRender(
  db: Knex,
  runId: string,
  now: Date,
  leaseSeconds: number,
): Promise<ClaimedRender | undefined> {
  const [row] = await db("carousel_runs")
    .where({ id: runId, status: "queued" })
    .update({
      status: "running",
      lease_expires_at: leaseEnd(now, leaseSeconds),
      render_attempts: db.raw("render_attempts + 1"),
      updated_at: now,
    })
    .returning(["id", "post_id", "user_id", "workspace_id", "render_attempts", "design_id"]);
  if (!row) return undefined;
  return {
    run_id: row.id,
    post_id: row.post_id,
    user_id: row.user_id,
    workspace_id: row.workspace_id,
    attempt: Number(row.render_attempts),
    design_id: row.design_id,
  };
}

/**
 * Extends the lease of `claim` while it has not run out. A lease past its end is lost even before the reaper
 * gives the run back: its holder stops rather than revive it, so whether the reaper or the holder's heartbeat
 * comes first, the run is taken over the same way. @returns false when the claim was lost (run out, reaped,
 * or finished elsewhere).
 */
export async function extendRenderLease(
  db: Knex,
  claim: ClaimedRender,
  now: Date,
  leaseSeconds: number,
): Promise<boolean> {
  const n = await db("carousel_runs")
    .where({ id: claim.run_id, status: "running", render_attempts: claim.attempt })
    .where("lease_expires_at", ">", now)
    .update({ lease_expires_at: leaseEnd(now, leaseSeconds) });
  return n > 0;
}

/** Clears the lease of `claim` once the render ended (the run's status was set by the render itself). */
export async function endRenderLease(db: Knex, claim: ClaimedRender): Promise<void> {
  await db("carousel_runs")
    .where({ id: claim.run_id, render_attempts: claim.attempt })
    .update({ lease_expires_at: null });
}

/**
 * Gives the run of `claim` back (`running` -> `queued`, no lease) so that another worker takes it, e.g. when
 * this worker stops. @returns false when the claim was already lost.
 */
export async function releaseRender(db: Knex, claim: ClaimedRender, now: Date): Promise<boolean> {
  const n = await db("carousel_runs")
    .where({ id: claim.run_id, status: "running", render_attempts: claim.attempt })
    .update({ status: "queued", lease_expires_at: null, render_dispatched_at: now, updated_at: now });
  return n > 0;
}

/**
 * Fails the run of `claim` with `reason` (a safe sentence): the run `failed`, its slides not ready `failed`
 * with the reason, so that retry_carousel can take them. The slides already ready stay.
 */
export async function failRender(
  db: Knex,
  claim: Pick<ClaimedRender, "run_id" | "attempt">,
  reason: string,
  now: Date,
): Promise<void> {
  await db.transaction(async (trx) => {
    const n = await trx("carousel_runs")
      .where({ id: claim.run_id, status: "running", render_attempts: claim.attempt })
      .update({ status: "failed", error: reason.slice(0, 300), lease_expires_at: null, updated_at: now });
    if (n === 0) return;
    await trx("carousel_slides")
      .where({ run_id: claim.run_id })
      .whereIn("status", ["pending", "generating"])
      .update({ status: "failed", error: reason.slice(0, 300), updated_at: now });
  });
}

/** What `requeueExpiredRenders` did. */
export interface RenderReapReport {
  /** Runs put back to `queued` for another worker. */
  requeued: string[];
  /** Runs failed after MAX_RENDER_ATTEMPTS takeovers. */
  failed: string[];
}

/**
 * Finds `running` runs whose lease ended before `now` (their worker died) and puts each back to `queued`
 * (the caller sends its render job again), or fails it after MAX_RENDER_ATTEMPTS attempts. Runs without a
 * lease (rendered inside an automation run's own operation) are not touched. @returns the runs moved.
 */
export async function requeueExpiredRenders(db: Knex, now: Date, limit = 100): Promise<RenderReapReport> {
  const expired: Array<{ id: string; render_attempts: number }> = await db("carousel_runs")
    .where({ status: "running" })
    .where("lease_expires_at", "<", now)
    .select("id", "render_attempts")
    .limit(limit);
  const report: RenderReapReport = { requeued: [], failed: [] };
  for (const run of expired) {
    const attempt = Number(run.render_attempts);
    if (attempt >= MAX_RENDER_ATTEMPTS) {
      await failRender(
        db,
        { run_id: run.id, attempt },
        `the render stopped ${attempt} times before finishing; retry_carousel renders the unfinished slides`,
        now,
      );
      report.failed.push(run.id);
      continue;
    }
    const n = await db("carousel_runs")
      .where({ id: run.id, status: "running", render_attempts: attempt })
      .where("lease_expires_at", "<", now)
      .update({ status: "queued", lease_expires_at: null, render_dispatched_at: now, updated_at: now });
    if (n > 0) report.requeued.push(run.id);
  }
  return report;
}

/**
 * Runs handed to the render queue before `before` and still `queued` (their job was lost or never sent),
 * oldest first. The caller sends their jobs again (the claim keeps each render single).
 */
export async function strandedRenders(db: Knex, before: Date, limit = 100): Promise<string[]> {
  const rows: Array<{ id: string }> = await db("carousel_runs")
    .where({ status: "queued" })
    .where("render_dispatched_at", "<", before)
    .orderBy("render_dispatched_at")
    .limit(limit)
    .select("id");
  return rows.map((r) => r.id);
}

/**
 * Sends the render job of run `runId` to the queue (`ctx.queue.dispatchRender`). A failure (no queue in this
 * process, queue unavailable) is logged and left to maintenance, which sends stranded runs again.
 * @returns true when the job was sent.
 */
export async function sendRenderJob(app: AppContext, runId: string): Promise<boolean> {
  try {
    if (!app.queue) throw new Error("no queue in this process");
    await app.queue.dispatchRender(runId);
    return true;
  } catch (err) {
    app.log.warn({ run_id: runId, err: { name: (err as Error)?.name } }, "carousel render dispatch failed");
    return false;
  }
}
