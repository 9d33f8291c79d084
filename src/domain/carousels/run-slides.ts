/**
 * One slide of a carousel run (./run.ts): the run's new copy, the CTA artwork slide, a slide's visual
 * (generated through the AI image provider, or the stored one for a copy or layout regeneration) and its
 * render, laid out while the visual is on its way and drawn as soon as it arrives
 * (src/providers/render/slide.ts).
 * What fails falls back as src/domain/ai-fallback.ts says (docs/providers.md "When a provider fails").
 */
import { rowBinding } from "../../crypto/seal.ts";
import type { AppContext } from "../../context.ts";
import { type PutImage, putGeneratedImage } from "../media/generated-image.ts";
import { ImageGenerationError, type ImageProvider } from "../../providers/ai-image/types.ts";
import { LIMITS, type SlideCopy } from "../../providers/ai-text/types.ts";
import { prepareSlide, type RenderedSlide } from "../../providers/render/slide.ts";
import { boundedSharp as sharp } from "../../providers/media-limits.ts";
import type { Owner } from "../owner.ts";
import type { Limiter } from "../concurrency.ts";
import type { Outline } from "./outline.ts";
import { GenerationFailed, generateWithFallback, type MadeBy, providerFailure } from "../ai-fallback.ts";
import { localAiText } from "../../providers/ai-text/local.ts";
import { localImageProvider } from "../../providers/ai-image/local.ts";
import { copyRequest, linkText, ownedImageBytes, readStored } from "./slide-inputs.ts";

export type Size = { width: number; height: number };

/**
 * The new copy of the run's slides, by position: every slide of a `generate` run, or the slide of a
 * regeneration that redoes `copy` (the next variant, with the regeneration's instructions in the brief),
 * and who wrote it. Other runs keep the stored copy (empty map, provider null).
 * @throws GenerationFailed when the text provider fails (with AI_FALLBACK=local the local provider writes
 * it instead, `provider: "local"`); the abort reason.
 */
export async function draftCopy(
  app: AppContext,
  run: Record<string, any>,
  slides: Array<Record<string, any>>,
  product: Record<string, any> | undefined,
  outline: Outline,
  brief: string | undefined,
  signal: AbortSignal | undefined,
): Promise<{ copies: Map<number, SlideCopy>; provider: MadeBy | null }> {
  const out = new Map<number, SlideCopy>();
  const wanted = run.kind === "generate" || run.redo === "copy";
  if (!wanted || !product) return { copies: out, provider: null };
  const variant =
    run.kind === "generate" ? 0 : Math.max(0, ...slides.map((s) => Number(s.copy_variant ?? 0))) + 1;
  const instructions =
    run.redo === "copy" && run.instructions_sealed
      ? app.sealer.open<string>(
          run.instructions_sealed,
          rowBinding("carousel_runs", "instructions_sealed", run.id),
        )
      : "";
  const fullBrief = [brief, instructions].filter(Boolean).join(" ") || undefined;
  const request = copyRequest(product, outline, fullBrief, variant);
  const s = signal ?? new AbortController().signal;
  const text = app.providers.text;
  try {
    const made = await generateWithFallback(
      app,
      "text",
      text.name,
      () => text.carouselCopy(request, s),
      () => localAiText.carouselCopy(request, s),
      s,
    );
    const copy = made.value;
    const name = String(product.name).trim();
    outline.slides.forEach((s, i) => {
      const c = copy[i];
      if (!c) return;
      // The first slide names the product (service spec 1.7), whatever the model wrote.
      const named = s.position !== 1 || c.headline.toLowerCase().includes(name.toLowerCase());
      out.set(
        s.position,
        named ? c : { ...c, headline: `${name}: ${c.headline}`.slice(0, LIMITS.slideHeadline) },
      );
    });
    return { copies: out, provider: made.provider };
  } catch (err) {
    if (s.aborted) throw err;
    throw new GenerationFailed(providerFailure("text", "the slides' copy", err));
  }
}

/**
 * What a drawn slide saves with its `ready` checkpoint: the row's changed fields and its image, written to
 * storage but recorded as a media asset in the checkpoint's own transaction.
 */
export interface SlideCheckpoint {
  update: Record<string, unknown>;
  image: { put: PutImage; meta: { title: string; labels: string[] } };
}

/**
 * Stored CTA artwork cover-fitted to the format's size as a JPEG slide (no image generated or charged),
 * written to storage (recorded with the slide's checkpoint by the caller).
 */
export async function ctaArtworkSlide(
  app: AppContext,
  owner: Owner,
  run: Record<string, any>,
  slide: Record<string, any>,
  size: Size,
  drawing: Limiter,
): Promise<SlideCheckpoint> {
  const art = run.cta_asset_id ? await ownedImageBytes(app, owner, run.cta_asset_id) : undefined;
  if (!art) throw new ImageGenerationError("the stored CTA artwork is missing");
  let bytes: Buffer;
  const turn = await drawing.acquire();
  try {
    bytes = await sharp(art)
      .resize(size.width, size.height, { fit: "cover" })
      .flatten({ background: "#ffffff" })
      .toColourspace("srgb")
      .withIccProfile("srgb")
      .jpeg({ quality: 90 })
      .toBuffer();
  } catch {
    throw new ImageGenerationError("the stored CTA artwork could not be decoded");
  } finally {
    turn();
  }
  return {
    update: {},
    image: {
      put: await putGeneratedImage(app, { bytes, mimeType: "image/jpeg", ...size }),
      meta: { title: `Carousel slide ${slide.position}: CTA artwork`, labels: ["carousel", "cta_artwork"] },
    },
  };
}

/** A slide's visual: the bytes to draw and, when newly generated, where they were stored and who made it. */
export interface SlideVisual {
  bytes: Buffer;
  /** The storage key of a newly generated visual (saved on the slide with its checkpoint). */
  visual_key?: string;
  /** Who made a newly generated visual (saved as the slide's `image_provider`). */
  provider?: MadeBy;
}

/** The offline image provider that stands in under AI_FALLBACK=local (built on first use). */
let localImages: ImageProvider | undefined;
function standInImages(): ImageProvider {
  localImages ??= localImageProvider();
  return localImages;
}

/**
 * Generates the slide's visual through `images` (one charged image; stored at once), or reuses the stored
 * one for a regeneration that redoes `copy` or `layout`.
 * @throws ImageGenerationError for a failed image or an unreadable stored visual; the abort reason when
 * `signal` is aborted.
 */
export async function slideVisual(
  app: AppContext,
  a: {
    run: Record<string, any>;
    slide: Record<string, any>;
    size: Size;
    photo: Buffer | undefined;
    /** The run's image provider, at most AI_IMAGE_CONCURRENCY requests in flight. */
    images: ImageProvider;
    signal: AbortSignal | undefined;
  },
): Promise<SlideVisual> {
  const { run, slide, size } = a;
  if ((run.redo === "copy" || run.redo === "layout") && slide.visual_key) {
    try {
      return { bytes: await readStored(app, slide.visual_key) };
    } catch {
      throw new ImageGenerationError("the slide's stored visual is missing; regenerate its image");
    }
  }
  const prompt = slide.image_prompt_sealed
    ? app.sealer.open<string>(
        slide.image_prompt_sealed,
        rowBinding("carousel_slides", "image_prompt_sealed", slide.id),
      )
    : String(slide.headline ?? "");
  const request = {
    prompt,
    seed: `${run.post_id}:${slide.position}:${run.id}`,
    width: size.width,
    height: size.height,
    headline: slide.headline ?? "",
    design: String(slide.design_id ?? run.design_id),
    reference: a.photo,
  };
  const made = await generateWithFallback(
    app,
    "image",
    a.images.name,
    () => a.images.generate(request, a.signal),
    () => standInImages().generate(request, a.signal),
    a.signal,
  );
  const image = made.value;
  const key = app.providers.storage.newKey(
    image.mimeType === "image/png" ? "png" : image.mimeType === "image/webp" ? "webp" : "jpg",
  );
  await app.providers.storage.putBytes(key, image.bytes);
  return { bytes: image.bytes, visual_key: key, provider: made.provider };
}

/**
 * Renders the slide: lays it out (a turn of `drawing`) while its visual is on its way, then draws it with the
 * visual (another turn) and writes it to storage (recorded with the slide's checkpoint by the caller).
 * @throws ImageGenerationError for a failed visual (first) or a slide
 * that cannot be rendered.
 */
export async function renderedSlide(
  app: AppContext,
  a: {
    run: Record<string, any>;
    slide: Record<string, any>;
    size: Size;
    total: number;
    product: Record<string, any> | undefined;
    photo: Buffer | undefined;
    copy: SlideCopy | undefined;
    /** Who wrote `copy`. */
    copyProvider: MadeBy | null;
    role: string | undefined;
    /** The slide's visual, requested when the run started (see `slideVisual`). */
    visual: Promise<SlideVisual>;
    /** The run's render lane: one slide laid out or drawn at a time (memory), while images are fetched. */
    drawing: Limiter;
  },
): Promise<SlideCheckpoint> {
  const { run, slide, size } = a;
  const design = String(slide.design_id ?? run.design_id);
  const update: Record<string, unknown> = {};
  const headline = a.copy?.headline ?? String(slide.headline ?? "");
  const body = a.copy?.body ?? slide.body ?? undefined;
  if (a.copy) {
    update.headline = headline;
    update.body = body;
    update.copy_provider = a.copyProvider;
    if (run.kind !== "generate") update.copy_variant = Number(slide.copy_variant ?? 0) + 1;
  }
  const productName = String(a.product?.name ?? "");
  const last = slide.position === a.total;
  const preparing = a.drawing
    .run(() =>
      prepareSlide({
        design,
        width: size.width,
        height: size.height,
        photo: a.photo,
        content: {
          headline,
          body,
          position: slide.position,
          total: a.total,
          kind: slide.position === 1 ? "hook" : a.role === "cta" || last ? "cta" : "content",
          productName,
          linkText: a.product ? linkText(a.product) : undefined,
        },
      }),
    )
    .then(
      (prepared) => ({ prepared }),
      () => ({ prepared: undefined }),
    );
  // The visual's failure is the slide's reason first (as when the layout followed the image); either way the
  // layout's turn is over before the slide settles.
  const [visual, { prepared }] = await Promise.all([
    a.visual.catch(async (err: unknown) => {
      await preparing;
      throw err;
    }),
    preparing,
  ]);
  if (visual.visual_key) {
    update.visual_key = visual.visual_key;
    update.image_provider = visual.provider ?? null;
  }
  if (!prepared) throw new ImageGenerationError("the slide could not be rendered from its visual");
  let rendered: RenderedSlide;
  const turn = await a.drawing.acquire();
  try {
    rendered = await prepared.draw(visual.bytes);
  } catch {
    throw new ImageGenerationError("the slide could not be rendered from its visual");
  } finally {
    turn();
  }
  return {
    update,
    image: {
      put: await putGeneratedImage(app, rendered),
      meta: { title: `Carousel slide ${slide.position}: ${headline}`, labels: ["carousel", design] },
    },
  };
}
