/**
 * Executes a queued carousel run in the worker (service spec 3.1 rule 2): claims the run, drafts the slides'
 * copy with the AI text provider (product facts and the run's brief), generates each pending slide's visual
 * through the AI image provider, renders the slide (src/providers/render/slide.ts: headline, body, slide
 * number, product photo) as a JPEG of the format's size, stores it as a generated media asset and marks the
 * slide `ready`; a slide whose image fails stays `failed` for `retry_carousel` (checkpoint retry). A
 * regeneration that redoes `copy` or `layout` reuses the slide's stored visual (no image is generated).
 * The run ends `succeeded` when all its slides are ready, else `failed`; the post's media follow the slides.
 * Every pending slide's image is requested when the run starts, before the copy is drafted, up to
 * AI_IMAGE_CONCURRENCY at once (src/domain/concurrency.ts); each slide is laid out while its image is on its
 * way, drawn as soon as it arrives and checkpointed at once; the slide renders take turns one at a time
 * (memory); the caption is written meanwhile.
 * Who made each part is recorded (`copy_provider`, `image_provider` on the slide; `caption_provider` on the
 * post). When the configured AI provider fails (src/domain/ai-fallback.ts): a slide's image leaves the slide
 * `failed` with the provider's reason; the slides' copy fails the run at once, nothing drawn, a `generate`
 * run's credits refunded (like paid work that never started); the caption fails the run once the slides are
 * drawn (they stay ready). With AI_FALLBACK=local the local provider makes that part instead, marked `local`.
 */
import { rowBinding } from "../../crypto/seal.ts";
import type { RunStatus } from "../runs.ts";
import type { AppContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { slideAltText } from "../media/alt-text.ts";
import { recordGeneratedImage } from "../media/generated-image.ts";
import { FORMAT_SIZES, ImageGenerationError, type ImageProvider } from "../../providers/ai-image/types.ts";
import type { SlideCopy } from "../../providers/ai-text/types.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { createLimiter, mapWithConcurrency } from "../concurrency.ts";
import type { Outline } from "./outline.ts";
import { GenerationFailed, type MadeBy } from "../ai-fallback.ts";
import { writeCarouselCaption } from "./caption.ts";
import { productPhoto } from "./slide-inputs.ts";
import { ctaArtworkSlide, draftCopy, renderedSlide, type SlideVisual, slideVisual } from "./run-slides.ts";

export interface RunOutcome {
  post_id: string;
  run_id: string;
  status: RunStatus;
  slides_ready: number;
  slides_failed: number;
  /** The run's safe failure message (null unless failed). */
  error: string | null;
}

/**
 * Runs `runId` of `owner` once, reporting `progress(done, total)` after each slide. Called by the render job
 * (src/operations/render.ts, which holds the run's lease) and inside an automation run's operation. A run that
 * is neither `queued` nor `running` (finished) is not started again; its current state is returned.
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
    // `running` too: the render job claimed the run under its lease before calling this (the lease, not this
    // row, guarantees one renderer at a time; src/operations/render.ts), and a run taken over from a dead
    // worker continues from its checkpoints: only slides not yet ready are rendered.
    .where({ id: runId })
    .whereIn("status", ["queued", "running"])
    .update({ status: "running", updated_at: app.clock.now() })
    .returning("id");
  if (claimed.length === 0) return summarize(app, run.post_id, runId);
  const size = FORMAT_SIZES[run.format ?? "square"] ?? FORMAT_SIZES.square!;
  const slides = await app
    .db("carousel_slides")
    .where({ run_id: runId })
    .whereIn("status", ["pending", "generating"])
    .orderBy("position");
  const product = await app.db("products").where(ownedBy(owner)).where({ id: run.product_id }).first();
  const outline = (typeof run.outline === "string" ? JSON.parse(run.outline) : run.outline) as Outline;
  const total: number = Number(
    (await app.db("carousel_slides").where({ post_id: run.post_id }).count({ n: "*" }).first())?.n ?? 0,
  );
  const brief = run.brief_sealed
    ? app.sealer.open<string>(run.brief_sealed, rowBinding("carousel_runs", "brief_sealed", run.id))
    : undefined;
  const photo = product ? await productPhoto(app, owner, product.id) : undefined;
  signal?.throwIfAborted();
  const pending = slides.length;
  await app
    .db("carousel_slides")
    .whereIn(
      "id",
      slides.map((s) => s.id),
    )
    .update({ status: "generating", updated_at: app.clock.now() });
  // Every pending slide's visual is requested at once, before the copy is drafted (its prompt and seed are on
  // the slide row, the copy does not change them), with at most AI_IMAGE_CONCURRENCY requests in flight
  // (`images`). The slide renders (CPU and memory: decoded visuals, satori, resvg) take turns one at a time
  // (`drawing`): each slide is laid out while its image is on its way and drawn as soon as it arrives, and
  // checkpointed (`ready`, or `failed` for retry_carousel) as soon as it is drawn. The caption is written
  // meanwhile. Concurrency adds waiting requests, not pixels.
  const images = limitedImages(app, app.config.image.concurrency);
  const drawing = createLimiter(1);
  const stopEarly = new AbortController();
  const imageSignal = signal ? AbortSignal.any([signal, stopEarly.signal]) : stopEarly.signal;
  const visuals = new Map<string, Promise<SlideVisual>>();
  for (const slide of slides) {
    if (slide.source === "cta_artwork") continue;
    const visual = slideVisual(app, { run, slide, size, photo, images, signal: imageSignal });
    visual.catch(() => {}); // awaited by the slide's render below (or settled when the copy fails)
    visuals.set(slide.id, visual);
  }
  let copies: Map<number, SlideCopy>;
  let copyProvider: MadeBy | null;
  try {
    ({ copies, provider: copyProvider } = await draftCopy(app, run, slides, product, outline, brief, signal));
    // The copy is saved before any slide is drawn, so a slide whose image fails keeps it for retry_carousel.
    for (const slide of slides) {
      const copy = copies.get(slide.position);
      if (copy && run.kind === "generate")
        await app
          .db("carousel_slides")
          .where({ id: slide.id })
          .update({
            headline: copy.headline,
            body: copy.body,
            copy_provider: slide.source === "cta_artwork" ? null : copyProvider,
          });
    }
  } catch (err) {
    // Nothing is drawn: the requests already made are stopped and settled before the error propagates.
    stopEarly.abort(err);
    await Promise.allSettled(visuals.values());
    if (err instanceof GenerationFailed) return failUndrawnRun(app, run, err.reason);
    throw err;
  }
  // The caption's failure (GenerationFailed) fails the run once the slides are drawn; they stay ready.
  const captioned = writeCarouselCaption(app, run, product, brief, signal).then(
    () => undefined,
    (err: unknown) => {
      if (err instanceof GenerationFailed && !signal?.aborted) return err;
      throw err;
    },
  );
  captioned.catch(() => {}); // awaited once the slides are done
  let done = 0;
  try {
    await mapWithConcurrency(slides, Math.max(1, slides.length), async (slide) => {
      signal?.throwIfAborted();
      try {
        const { update, image } =
          slide.source === "cta_artwork"
            ? await ctaArtworkSlide(app, owner, run, slide, size, drawing)
            : await renderedSlide(app, {
                run,
                slide,
                size,
                total,
                product,
                photo,
                copy: copies.get(slide.position),
                copyProvider,
                role: outline.slides.find((o) => o.position === slide.position)?.role,
                visual: visuals.get(slide.id)!,
                drawing,
              });
        // The slide's image is recorded with its checkpoint: a worker killed in between leaves no asset.
        await app.db.transaction(async (trx) => {
          // Alt text from the slide's own words (src/domain/media/alt-text.ts).
          const altText = slideAltText({
            headline: String(update.headline ?? slide.headline ?? "") || "Call to action",
            body: (update.body ?? slide.body ?? null) as string | null,
            position: slide.position,
            total,
          });
          const imageAssetId = await recordGeneratedImage(trx, owner, image.put, { ...image.meta, altText });
          await trx("carousel_slides")
            .where({ id: slide.id })
            .update({
              ...update,
              image_asset_id: imageAssetId,
              status: "ready",
              error: null,
              updated_at: app.clock.now(),
            });
        });
      } catch (err) {
        if (!(err instanceof ImageGenerationError)) throw err;
        await app
          .db("carousel_slides")
          .where({ id: slide.id })
          .update({ status: "failed", error: err.reason.slice(0, 300), updated_at: app.clock.now() });
      }
      done += 1;
      opts.progress?.(done, pending);
    });
  } catch (err) {
    stopEarly.abort(err);
    await Promise.allSettled([captioned, ...visuals.values()]);
    throw err;
  }
  const captionFailed = await captioned;
  const outcome = await summarize(app, run.post_id, runId);
  const failed = outcome.slides_failed > 0 || captionFailed !== undefined;
  const errors = [
    outcome.slides_failed > 0
      ? `${outcome.slides_failed} slide(s) failed; retry_carousel regenerates only the failed slides`
      : "",
    captionFailed
      ? `${captionFailed.reason}; pass your own caption to approve_carousel, or generate the carousel again`
      : "",
  ].filter(Boolean);
  const error = failed ? errors.join("; ").slice(0, 1000) : null;
  await app
    .db("carousel_runs")
    .where({ id: runId })
    .update({ status: failed ? "failed" : "succeeded", error, updated_at: app.clock.now() });
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
  return { ...outcome, status: failed ? "failed" : "succeeded", error };
}

/**
 * Fails run `run` whose slides' copy could not be written, before anything was drawn: the run `failed` with
 * `reason`, its waiting slides `failed` (retry_carousel can take them), and a `generate` run's credits
 * refunded once, as for paid work that never started (./settle.ts: `refund:carousel_run`, the unique
 * refund index makes it once). @returns the run's outcome.
 */
async function failUndrawnRun(
  app: AppContext,
  run: Record<string, any>,
  reason: string,
): Promise<RunOutcome> {
  const credits = run.kind === "generate" ? Number(run.credits_charged ?? 0) : 0;
  const error = (
    credits > 0
      ? `${reason}; nothing was drawn and its ${credits} credits were refunded: generate the carousel again`
      : `${reason}; nothing was drawn: try again`
  ).slice(0, 1000);
  const now = app.clock.now();
  await app.db.transaction(async (trx) => {
    await trx("carousel_runs").where({ id: run.id }).update({ status: "failed", error, updated_at: now });
    await trx("carousel_slides")
      .where({ run_id: run.id })
      .whereIn("status", ["pending", "generating"])
      .update({ status: "failed", error: reason.slice(0, 300), updated_at: now });
    if (credits > 0)
      await trx.raw(
        `insert into credit_ledger (user_id, workspace_id, delta, reason, reference_id, operation_id, created_at)
         values (?, ?, ?, 'refund:carousel_run', ?, ?, ?)
         on conflict (reference_id) where reason like 'refund:%' and reference_id is not null do nothing`,
        [run.user_id, run.workspace_id, credits, run.id, run.operation_id ?? null, now],
      );
  });
  return summarize(app, run.post_id, run.id);
}

/** The configured image provider with at most `limit` requests in flight (the others wait their turn). */
function limitedImages(app: AppContext, limit: number): ImageProvider {
  const requests = createLimiter(limit);
  const provider = app.providers.image;
  return {
    name: provider.name,
    generate: (request, signal) =>
      requests.run(() => {
        signal?.throwIfAborted();
        return provider.generate(request, signal);
      }),
  };
}

async function summarize(app: AppContext, postId: string, runId: string): Promise<RunOutcome> {
  const run = await app.db("carousel_runs").where({ id: runId }).first("status", "error");
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
    error: run?.error ?? null,
  };
}
