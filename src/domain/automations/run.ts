/**
 * Manual automation runs (service spec 3.1 rule 2, 8): the approved effect of `run_automation`. A run is a
 * native `automation_runs` row (trigger `manual`) that charges the native price before any work (2x2 video
 * 20, single fade 5, AI UGC 10, carousel = the carousel price) and produces its output through the providers:
 * frames through the AI image provider, the video through the video provider (the local one records a render
 * plan), carousels through the carousel pipeline. Read back with `getAutomationRun` by kind and run id.
 */
import type { RunStatus } from "../runs.ts";
import { randomUUID } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { storeGeneratedImage } from "../media/generated-image.ts";
import { ImageGenerationError } from "../../providers/ai-image/types.ts";
import { validateSettings, type TemplateId } from "./config.ts";
import { automationView, ownedAutomation } from "./automations.ts";
import { acceptCarouselGeneration } from "../carousels/carousels.ts";
import { executeCarouselRun } from "../carousels/run.ts";
import { chargeCredits } from "../account/credits.ts";
import { advanceDeliveries } from "../social/engine.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { videoPrice } from "../account/prices.ts";

/** Frames generated per video template. */
const FRAMES: Record<TemplateId, number> = { "2x2-grid": 4, "single-fade": 1, "ugc-video": 0 };

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
  const { automationId, operationId, signal } = options;
  const runId = randomUUID();
  const started = await app.db.transaction(async (trx) => {
    const a = automationView(await ownedAutomation(trx, owner, automationId));
    const settings = await validateSettings(trx, owner, a);
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
      created_at: now,
      updated_at: now,
    });
    return { automation: a, settings, credits, carousel };
  });
  const { automation, settings, credits, carousel } = started;
  let status: "succeeded" | "failed";
  try {
    if (carousel) {
      const outcome = await executeCarouselRun(app, owner, carousel.run_id, { signal });
      status = outcome.status === "succeeded" ? "succeeded" : "failed";
      await finish(app, runId, status, {
        result: {
          post_id: carousel.post_id,
          carousel_run_id: carousel.run_id,
          slides_ready: outcome.slides_ready,
          slides_failed: outcome.slides_failed,
        },
        error:
          status === "failed" ? "some carousel slides failed; retry_carousel regenerates only those" : null,
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
      await finish(app, runId, status, { result: result.result, error: null, postId: result.postId });
    }
  } catch (err) {
    if (!(err instanceof ImageGenerationError)) {
      app.log.error(
        { run_id: runId, err: { name: (err as Error)?.name } },
        "automation run failed unexpectedly",
      );
    }
    status = "failed";
    await finish(app, runId, status, {
      result: null,
      error: "generation failed; run the automation again",
      postId: carousel?.post_id ?? null,
    });
    if (!(err instanceof ImageGenerationError)) throw err;
  }
  if (status === "succeeded") {
    const run = await app.db("automation_runs").where({ id: runId }).first("post_id");
    const ids = settings.configuration.social_account_ids;
    if (run?.post_id && Array.isArray(ids) && ids.length > 0)
      await deliverOutput(app, owner, run.post_id, ids as string[], operationId);
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
 * Sends a generated post to the automation's destinations: TikTok deliveries wait in `needs_review` for the
 * creator options and consent of the service's own review UI (service spec 1.11); the others are published
 * through the social provider (the run itself was approved in the browser).
 */
async function deliverOutput(
  app: AppContext,
  owner: Owner,
  postId: string,
  accountIds: string[],
  operationId: string | undefined,
) {
  const accounts: Array<{ id: string; network: string }> = await app
    .db("social_accounts")
    .where(ownedBy(owner))
    .whereIn("id", accountIds)
    .select("id", "network");
  if (accounts.length === 0) return;
  const now = app.clock.now();
  const rows: Array<{ id: string; status: string }> = await app
    .db("deliveries")
    .insert(
      accounts.map((a) => ({
        ...ownedBy(owner),
        post_id: postId,
        social_account_id: a.id,
        status: a.network === "tiktok" ? "needs_review" : "pending",
        operation_id: operationId ?? null,
        created_at: now,
        updated_at: now,
      })),
    )
    .returning(["id", "status"]);
  const pending = rows.filter((r) => r.status === "pending").map((r) => r.id);
  if (pending.length > 0) await advanceDeliveries(app, pending);
  else
    await app
      .db("posts")
      .where({ id: postId })
      .update({ status: "needs_review", updated_at: app.clock.now() });
}

async function finish(
  app: AppContext,
  runId: string,
  status: string,
  r: { result: unknown; error: string | null; postId: string | null },
): Promise<void> {
  const now = app.clock.now();
  await app
    .db("automation_runs")
    .where({ id: runId })
    .update({
      status,
      result: r.result === null ? null : JSON.stringify(r.result),
      error: r.error,
      post_id: r.postId,
      finished_at: now,
      updated_at: now,
    });
}

/** Generates the frames, asks the video provider for the video, and saves a draft video post. */
async function renderVideo(
  app: AppContext,
  owner: Owner,
  runId: string,
  name: string,
  configuration: Record<string, unknown>,
  ctaAssetId: string | null,
  signal?: AbortSignal,
): Promise<{ result: Record<string, unknown>; postId: string }> {
  const template = configuration.template_id as TemplateId;
  const product =
    typeof configuration.product_id === "string"
      ? await app
          .db("products")
          .where(ownedBy(owner))
          .where({ id: configuration.product_id })
          .first("name", "description")
      : undefined;
  const subject = product?.name ?? name;
  const frames: string[] = [];
  for (let i = 0; i < FRAMES[template]; i++) {
    signal?.throwIfAborted();
    const image = await app.providers.image.generate(
      {
        prompt: `Frame ${i + 1} of a ${template} video about ${subject}`,
        seed: `${runId}:${i}`,
        width: 1080,
        height: 1920,
      },
      signal,
    );
    frames.push(
      await storeGeneratedImage(app, owner, image, {
        title: `${name}: frame ${i + 1}`,
        labels: ["automation", template],
      }),
    );
  }
  const hook =
    template === "ugc-video"
      ? typeof configuration.hook === "string"
        ? configuration.hook
        : `POV: you just found ${subject}`
      : null;
  const video = await app.providers.video.render(
    { template, frameAssetIds: frames, ctaAssetId, hook, seed: runId },
    signal,
  );
  const now = app.clock.now();
  const postId = randomUUID();
  await app.db("posts").insert({
    id: postId,
    ...ownedBy(owner),
    type: "video",
    status: "draft",
    title: `${name}`.slice(0, 200),
    product_id: typeof configuration.product_id === "string" ? configuration.product_id : null,
    media_asset_ids: JSON.stringify(ctaAssetId ? [...frames, ctaAssetId] : frames),
    automation_run_id: runId,
    created_at: now,
    updated_at: now,
  });
  return { result: { post_id: postId, hook, video }, postId };
}
