/**
 * Executes a queued carousel run in the worker (service spec 3.1 rule 2): claims the run, generates each of
 * its pending slides through the AI image provider, stores each image as a generated media asset and marks
 * the slide `ready`; a slide whose image fails stays `failed` for `retry_carousel` (checkpoint retry).
 * The run ends `succeeded` when all its slides are ready, else `failed`; the post's media follow the slides.
 */
import type { AppContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { storeGeneratedImage } from "../media/generated-image.ts";
import { FORMAT_SIZES, ImageGenerationError } from "../../providers/ai-image/types.ts";
import { type Owner, ownedBy } from "../owner.ts";

export interface RunOutcome {
  post_id: string;
  run_id: string;
  status: string;
  slides_ready: number;
  slides_failed: number;
}

/**
 * Runs `runId` of `owner` once, reporting `progress(done, total)` after each slide. A run that is not `queued` (already claimed by another attempt) is not
 * started again; its current state is returned.
 * @throws ToolError not_found when the run is not the owner's; provider errors other than
 * ImageGenerationError propagate (the operation becomes outcome_unknown, slides stay as they are).
 */
export async function executeCarouselRun(
  app: AppContext,
  owner: Owner,
  runId: string,
  opts: {
    signal?: AbortSignal | undefined;
    progress?: ((done: number, total: number) => void) | undefined;
  } = {},
): Promise<RunOutcome> {
  const { signal } = opts;
  const run = await app.db("carousel_runs").where(ownedBy(owner)).where({ id: runId }).first();
  if (!run) throw notFound("carousel run");
  const claimed = await app
    .db("carousel_runs")
    // `running` too: a run whose worker died is resumed by the next holder of its operation (the operation
    // claim, not this row, guarantees one executor at a time); only slides not yet ready are rendered.
    .where({ id: runId })
    .whereIn("status", ["queued", "running"])
    .update({ status: "running", updated_at: app.clock.now() })
    .returning("id");
  if (claimed.length === 0) return summarize(app, run.post_id, runId);
  const provider = app.providers.image;
  const size = FORMAT_SIZES[run.format ?? "square"] ?? FORMAT_SIZES.square!;
  const slides = await app
    .db("carousel_slides")
    .where({ run_id: runId })
    .whereIn("status", ["pending", "generating"])
    .orderBy("position");
  const total = slides.length;
  let done = 0;
  for (const slide of slides) {
    signal?.throwIfAborted();
    if (slide.source === "cta_artwork") {
      // Stored CTA artwork is reused as is: no image is generated or charged.
      const ok = Boolean(run.cta_asset_id);
      await app
        .db("carousel_slides")
        .where({ id: slide.id })
        .update(
          ok
            ? { status: "ready", image_asset_id: run.cta_asset_id, error: null, updated_at: app.clock.now() }
            : { status: "failed", error: "the stored CTA artwork is missing", updated_at: app.clock.now() },
        );
      done += 1;
      opts.progress?.(done, total);
      continue;
    }
    await app
      .db("carousel_slides")
      .where({ id: slide.id })
      .update({ status: "generating", updated_at: app.clock.now() });
    try {
      const prompt = slide.image_prompt_sealed
        ? app.sealer.open<string>(slide.image_prompt_sealed)
        : String(slide.headline ?? "");
      const image = await provider.generate(
        {
          prompt,
          seed: `${run.post_id}:${slide.position}:${runId}`,
          width: size.width,
          height: size.height,
          headline: slide.headline ?? "",
        },
        signal,
      );
      const assetId = await storeGeneratedImage(app, owner, image, {
        title: `Carousel slide ${slide.position}: ${slide.headline ?? ""}`,
        labels: ["carousel", run.design_id],
      });
      await app
        .db("carousel_slides")
        .where({ id: slide.id })
        .update({ status: "ready", image_asset_id: assetId, error: null, updated_at: app.clock.now() });
    } catch (err) {
      if (!(err instanceof ImageGenerationError)) throw err;
      await app
        .db("carousel_slides")
        .where({ id: slide.id })
        .update({ status: "failed", error: err.reason.slice(0, 300), updated_at: app.clock.now() });
    }
    done += 1;
    opts.progress?.(done, total);
  }
  const outcome = await summarize(app, run.post_id, runId);
  const failed = outcome.slides_failed > 0;
  await app
    .db("carousel_runs")
    .where({ id: runId })
    .update({
      status: failed ? "failed" : "succeeded",
      error: failed
        ? `${outcome.slides_failed} slide(s) failed; retry_carousel regenerates only the failed slides`
        : null,
      updated_at: app.clock.now(),
    });
  const assets: Array<{ image_asset_id: string | null }> = await app
    .db("carousel_slides")
    .where({ post_id: run.post_id, status: "ready" })
    .orderBy("position")
    .select("image_asset_id");
  await app
    .db("posts")
    .where({ id: run.post_id })
    .update({
      media_asset_ids: JSON.stringify(assets.map((a) => a.image_asset_id).filter(Boolean)),
      updated_at: app.clock.now(),
    });
  return { ...outcome, status: failed ? "failed" : "succeeded" };
}

async function summarize(app: AppContext, postId: string, runId: string): Promise<RunOutcome> {
  const run = await app.db("carousel_runs").where({ id: runId }).first("status");
  const rows: Array<{ status: string; n: number }> = await app
    .db("carousel_slides")
    .where({ run_id: runId })
    .groupBy("status")
    .select("status")
    .count({ n: "*" });
  const n = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  return {
    post_id: postId,
    run_id: runId,
    status: run?.status ?? "unknown",
    slides_ready: n("ready"),
    slides_failed: n("failed"),
  };
}
