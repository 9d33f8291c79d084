/**
 * Manual automation runs (service spec 3.1 rule 2, 8): the approved effect of `run_automation`. A run is a
 * native `automation_runs` row (trigger `manual`) that charges the native price before any work (2x2 video
 * 20, single fade 5, AI UGC 10, carousel = the carousel price) and produces its output through the providers:
 * images through the AI image provider, the hook through the AI text provider, the MP4 through the video
 * provider (stored as a video asset on the run's post), carousels through the carousel pipeline. A video run
 * whose render fails refunds its charge. Read back with `getAutomationRun` by kind and run id.
 */
import type { RunStatus } from "../runs.ts";
import { randomUUID } from "node:crypto";
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { ImageGenerationError } from "../../providers/ai-image/types.ts";
import { VideoRenderError } from "../../providers/video/types.ts";
import { GenerationFailed } from "../ai-fallback.ts";
import { validateSettings, type TemplateId } from "./config.ts";
import { automationView, ownedAutomation } from "./automations.ts";
import { acceptCarouselGeneration } from "../carousels/carousels.ts";
import { executeCarouselRun } from "../carousels/run.ts";
import { chargeCredits, refundCredits } from "../account/credits.ts";
import { factChanges, type PublishFacts, publishFacts } from "./publish-binding.ts";
import { deliverOutput, holdOutput } from "./run-output.ts";
import { holdRunLease, runLeaseEnd } from "./crashed-runs.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { videoPrice } from "../account/prices.ts";
import { renderVideo } from "./run-video.ts";

export interface RunSummary {
  automation_id: string;
  kind: "video" | "carousel";
  run_id: string;
  status: RunStatus;
}

/** What `runAutomation` runs and how. */
export interface RunOptions {
  /** The owner's automation. */
  automationId: string;
  /** The operation of a `run_automation` call (recorded on the run and its charges); none for the scheduler. */
  operationId?: string | undefined;
  /** Aborts the generation (operation deadline, shutdown). */
  signal?: AbortSignal | undefined;
  /**
   * A scheduled run's daily slot (src/domain/automations-schedule.ts): the run gets trigger `schedule`, and
   * the unique (automation_id, scheduled_slot) index makes a second run of the same slot fail with a unique
   * violation (23505) before anything is charged or created.
   */
  scheduledSlot?: Date | undefined;
  /**
   * The publish facts the approval of a `run_automation` request showed (./publish-binding.ts); a scheduled
   * run (none given) publishes only what the automation's enabling approved (`automations.approved_publish`).
   * When the facts the run generated with, or the current ones, differ, its post is held as a draft.
   */
  approvedFacts?: PublishFacts | null | undefined;
}

/**
 * Runs the owner's automation once. Credits are charged together with the run record; a short balance
 * refuses the run before anything is created.
 * @throws ToolError not_found / validation_failed (definition no longer valid) / forbidden (credits).
 */
export async function runAutomation(
  app: AppContext,
  owner: Owner,
  options: RunOptions,
): Promise<RunSummary & { credits_charged: number }> {
  const { automationId, operationId } = options;
  const runId = randomUUID();
  // The run's lease (./crashed-runs.ts): extended while this process generates; losing it aborts the work.
  const lease = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, lease.signal]) : lease.signal;
  const started = await app.db.transaction(async (trx) => {
    const row = await ownedAutomation(trx, owner, automationId);
    const a = automationView(row);
    const settings = await validateSettings(trx, owner, a);
    // What this run publishes besides its content, and what the owner approved of it.
    const facts = await publishFacts(trx, settings.configuration);
    const approved: PublishFacts | null =
      options.approvedFacts !== undefined
        ? options.approvedFacts
        : ((row.approved_publish ?? null) as PublishFacts | null);
    const now = app.clock.now();
    let credits: number;
    let carousel: { post_id: string; run_id: string } | undefined;
    if (a.kind === "carousel") {
      const c = settings.configuration;
      const accepted = await acceptCarouselGeneration(
        trx,
        owner,
        {
          product_id: String(c.product_id),
          slide_count: Number(c.slide_count),
          design_id: String(c.design_id),
          format: c.format as string | undefined,
          use_cta_artwork: c.use_cta_artwork === true,
        },
        { operationId, now, sealer: app.sealer, deadlineSeconds: app.config.worker.operationDeadlineSeconds },
      );
      credits = accepted.credits_charged;
      carousel = accepted;
    } else {
      credits = videoPrice(settings.configuration.template_id as TemplateId);
      await chargeCredits(trx, {
        userId: owner.userId,
        workspaceId: owner.workspaceId,
        credits,
        reason: "charge:run_automation",
        referenceId: runId,
        ...(operationId ? { operationId } : {}),
      });
    }
    await trx("automation_runs").insert({
      id: runId,
      ...ownedBy(owner),
      automation_id: a.automation_id,
      kind: a.kind,
      trigger: options.scheduledSlot ? "schedule" : "manual",
      scheduled_slot: options.scheduledSlot ?? null,
      status: "running",
      credits_charged: credits,
      post_id: carousel?.post_id ?? null,
      operation_id: operationId ?? null,
      started_at: now,
      lease_expires_at: runLeaseEnd(app, now),
      publish_facts: facts ? JSON.stringify(facts) : null,
      created_at: now,
      updated_at: now,
    });
    return { automation: a, settings, credits, carousel, facts, approved };
  });
  const { automation, settings, credits, carousel } = started;
  const heartbeat = holdRunLease(app, runId, lease);
  let status: "succeeded" | "failed";
  try {
    if (carousel) {
      const outcome = await executeCarouselRun(app, owner, carousel.run_id, { signal });
      status = outcome.status === "succeeded" ? "succeeded" : "failed";
      await finish(app.db, app.clock.now(), runId, status, {
        result: {
          post_id: carousel.post_id,
          carousel_run_id: carousel.run_id,
          slides_ready: outcome.slides_ready,
          slides_failed: outcome.slides_failed,
        },
        error:
          status === "failed"
            ? (outcome.error ?? "some carousel slides failed; retry_carousel regenerates only those")
            : null,
        postId: carousel.post_id,
      });
    } else {
      const result = await renderVideo(
        app,
        owner,
        runId,
        automation.name,
        settings.configuration,
        settings.cta_asset_id,
        signal,
      );
      status = "succeeded";
      await finish(app.db, app.clock.now(), runId, status, {
        result: result.result,
        error: null,
        postId: result.postId,
      });
    }
  } catch (err) {
    const expected =
      err instanceof ImageGenerationError ||
      err instanceof VideoRenderError ||
      err instanceof GenerationFailed;
    if (!expected) {
      app.log.error(
        { run_id: runId, err: { name: (err as Error)?.name } },
        "automation run failed unexpectedly",
      );
    } else if (err instanceof VideoRenderError) {
      app.log.warn({ run_id: runId, reason: err.reason }, "video render failed");
    }
    status = "failed";
    // The safe reason of a failed image or video (status, provider param and code; never provider text).
    const why = expected
      ? ` (${(err as ImageGenerationError | VideoRenderError | GenerationFailed).reason})`
      : "";
    // A video run that produced no video gives its credits back (one ledger row, with the run record).
    const refunded = !carousel && credits > 0;
    await app.db.transaction(async (trx) => {
      const ended = await finish(trx, app.clock.now(), runId, status, {
        result: null,
        error: refunded
          ? `generation failed${why} and the ${credits} credits were refunded; run the automation again`
          : `generation failed${why}; run the automation again`,
        postId: carousel?.post_id ?? null,
      });
      // A run the reaper ended already was settled there (./crashed-runs.ts).
      if (ended && refunded)
        await refundCredits(trx, {
          userId: owner.userId,
          workspaceId: owner.workspaceId,
          credits,
          reason: "refund:run_automation",
          referenceId: runId,
          ...(operationId ? { operationId } : {}),
        });
    });
    if (!expected) throw err;
  } finally {
    clearInterval(heartbeat);
  }
  // A run whose lease was lost meanwhile was ended by the reaper (./crashed-runs.ts): nothing more to do.
  const ended = await app.db("automation_runs").where({ id: runId }).first("status");
  if (ended?.status !== status) status = "failed";
  if (status === "succeeded") {
    const run = await app.db("automation_runs").where({ id: runId }).first("post_id");
    const ids = settings.configuration.social_account_ids;
    if (run?.post_id && Array.isArray(ids) && ids.length > 0) {
      // Only what the owner approved goes out: a product link, name or price (or destinations) that changed
      // since the approval holds the post as a draft until the owner approves the change.
      const current = await publishFacts(app.db, settings.configuration);
      const changed = started.approved
        ? [
            ...new Set([
              ...factChanges(started.approved, started.facts),
              ...factChanges(started.approved, current),
            ]),
          ]
        : ["the owner has not approved what this automation publishes yet"];
      if (changed.length === 0) await deliverOutput(app, owner, run.post_id, ids as string[], operationId);
      else await holdOutput(app, runId, changed);
    }
  }
  return {
    automation_id: automation.automation_id,
    kind: automation.kind,
    run_id: runId,
    status,
    credits_charged: credits,
  };
}

/**
 * Ends run `runId` with `status`, only while it is still `running` (a run whose lease ran out was ended by
 * the reaper, ./crashed-runs.ts, and is not overwritten). @returns false when the run was no longer running.
 */
async function finish(
  db: Knex,
  now: Date,
  runId: string,
  status: string,
  r: { result: unknown; error: string | null; postId: string | null },
): Promise<boolean> {
  const n = await db("automation_runs")
    .where({ id: runId, status: "running" })
    .update({
      status,
      result: r.result === null ? null : JSON.stringify(r.result),
      error: r.error,
      post_id: r.postId,
      lease_expires_at: null,
      finished_at: now,
      updated_at: now,
    });
  return n > 0;
}
