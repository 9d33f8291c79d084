import { randomUUID } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { storeGeneratedImage } from "../media/generated-image.ts";
import { TEMPLATE_IMAGES, VideoRenderError } from "../../providers/video/types.ts";
import { generatedVideoDescription } from "../media/alt-text.ts";
import { renderAndStoreVideo } from "../media/generated-video.ts";
import { buildSubject } from "../captions/captions.ts";
import { mapWithConcurrency } from "../concurrency.ts";
import { generatedCaption } from "../captions/post-caption.ts";
import {
  GenerationFailed,
  generateWithFallback,
  LOCAL,
  type Made,
  type MadeBy,
  madeByAll,
  providerFailure,
} from "../ai-fallback.ts";
import { localAiText } from "../../providers/ai-text/local.ts";
import { localImageProvider } from "../../providers/ai-image/local.ts";
import { type TextSubject, TONES } from "../../providers/ai-text/types.ts";
import type { TemplateId } from "./config.ts";
import { ownFrames } from "./video-frames.ts";
import { productPhotos } from "../carousels/slide-inputs.ts";
import { type Owner, ownedBy } from "../owner.ts";

/**
 * Generates the images (through the AI image provider, after the product's own photos: ./video-frames.ts),
 * takes the hook (the configured one, else one from the AI text provider for this product), has the caption
 * written by the AI text provider (`videoCaption`), renders the MP4 through the video provider, stores it as
 * a video asset and saves a draft video post carrying it. Who made the video is recorded with the run's
 * result (`video.provider`: `local` when the stand-in made a frame, the hook or the UGC hook clip; with
 * AI_FALLBACK=local after a provider failed, too) and the caption's on the post (`caption_provider`).
 * @throws ImageGenerationError / VideoRenderError / GenerationFailed (the caller marks the run failed and
 * refunds).
 */
export async function renderVideo(
  app: AppContext,
  owner: Owner,
  runId: string,
  name: string,
  configuration: Record<string, unknown>,
  ctaAssetId: string | null,
  signal?: AbortSignal,
): Promise<{ result: Record<string, unknown>; postId: string }> {
  const template = configuration.template_id as TemplateId;
  const subject = await buildSubject(app.db, owner, {
    product_id: typeof configuration.product_id === "string" ? configuration.product_id : undefined,
  });
  const title = subject.name ?? name;
  const photos = await productPhotos(app, owner, configuration.product_id, TEMPLATE_IMAGES[template]);
  const own = ownFrames(template, photos);
  const images: Buffer[] = [...own.images];
  const frames: string[] = [];
  // Up to AI_IMAGE_CONCURRENCY images at once; each is stored (a frame asset) as soon as it is generated.
  const wanted = Array.from(
    { length: TEMPLATE_IMAGES[template] - images.length },
    (_, k) => images.length + k,
  );
  const imageProvider = app.providers.image;
  const generated = await mapWithConcurrency(wanted, app.config.image.concurrency, async (i) => {
    signal?.throwIfAborted();
    const request = {
      prompt: `Frame ${i + 1} of a ${template} video about ${title}`,
      seed: `${runId}:${i}`,
      width: 1080,
      height: 1920,
      reference: photos[0],
    };
    const made = await generateWithFallback(
      app,
      "image",
      imageProvider.name,
      () => imageProvider.generate(request, signal),
      () => localImageProvider().generate(request, signal),
      signal,
    );
    const frame = await storeGeneratedImage(app, owner, made.value, {
      title: `${name}: frame ${i + 1}`,
      labels: ["automation", template],
    });
    return { bytes: made.value.bytes, frame, provider: made.provider };
  });
  const madeBy: Array<MadeBy | null> = [];
  for (const g of generated) {
    images.push(g.bytes);
    frames.push(g.frame);
    madeBy.push(g.provider);
  }
  let hook: string | undefined;
  if (typeof configuration.hook === "string" && configuration.hook.trim()) hook = configuration.hook;
  else {
    const s = signal ?? new AbortController().signal;
    const text = app.providers.text;
    const request = { subject, count: 1, tone: "bold" as const };
    const made = await generateWithFallback(
      app,
      "text",
      text.name,
      () => text.ugcHooks(request, s),
      () => localAiText.ugcHooks(request, s),
      s,
    ).catch((err: unknown) => {
      if (s.aborted) throw err;
      throw new GenerationFailed(providerFailure("text", "the hook", err));
    });
    hook = made.value[0];
    madeBy.push(made.provider);
  }
  if (!hook) throw new VideoRenderError("no hook text was generated");
  // Written before the render: a caption the provider cannot write fails the run before any video exists.
  const caption = await videoCaption(app, owner, subject, configuration, hook, signal);
  const cta = ctaAssetId
    ? await app
        .db("media_assets")
        .where(ownedBy(owner))
        .where({ id: ctaAssetId, kind: "video" })
        .first("storage_key")
    : undefined;
  if (template === "ugc-video" && !cta) throw new VideoRenderError("the CTA video is no longer available");
  const video = await renderAndStoreVideo(
    app,
    owner,
    {
      template,
      images,
      zooms: own.zooms,
      hook,
      caption: subject.name,
      cta: cta ? { open: async () => (await app.providers.storage.read(cta.storage_key)).stream } : undefined,
      seed: runId,
    },
    {
      title: `${name}: ${template} video`,
      labels: ["automation", template],
      altText: generatedVideoDescription({ template, productName: title, hook }),
    },
    signal,
  );
  // The UGC hook clip: a video model's, or the local motion that stands in for one.
  if (template === "ugc-video")
    madeBy.push(video.hook_clip === "generated" ? app.providers.video.name : LOCAL);
  const now = app.clock.now();
  const postId = randomUUID();
  await app.db("posts").insert({
    id: postId,
    ...ownedBy(owner),
    type: "video",
    status: "draft",
    title: `${name}`.slice(0, 200),
    caption: caption.value,
    caption_provider: caption.provider,
    product_id: typeof configuration.product_id === "string" ? configuration.product_id : null,
    media_asset_ids: JSON.stringify([video.asset_id]),
    automation_run_id: runId,
    created_at: now,
    updated_at: now,
  });
  return {
    result: {
      post_id: postId,
      hook,
      video: { ...video, provider: madeByAll(madeBy), frame_asset_ids: frames, cta_asset_id: ctaAssetId },
    },
    postId,
  };
}

/**
 * The caption of a video run's post (docs/operations.md "Captions of generated posts"):
 * written by the AI text provider (`postCaption`, in the automation's `caption_tone`) from the product
 * (name, facts, price, link) and the video's hook, once the video is stored and just before the post is
 * saved; nothing is charged for it (src/domain/captions/post-caption.ts).
 */
async function videoCaption(
  app: AppContext,
  owner: Owner,
  subject: TextSubject,
  configuration: Record<string, unknown>,
  hook: string,
  signal: AbortSignal | undefined,
): Promise<Made<string>> {
  const product =
    typeof configuration.product_id === "string"
      ? await app
          .db("products")
          .where(ownedBy(owner))
          .where({ id: configuration.product_id })
          .first("product_url")
      : undefined;
  const tone = TONES.find((t) => t === configuration.caption_tone);
  return generatedCaption(
    app,
    { subject, productUrl: product?.product_url ?? undefined, slides: [{ headline: hook, body: "" }], tone },
    signal,
  );
}
