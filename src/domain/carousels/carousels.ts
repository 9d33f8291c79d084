/**
 * Carousels (service spec 1.7, 2.7, 3.1 rule 2, 4.2 rule 5, 8): the design catalog and the accept parts of
 * generation, targeted slide regeneration and checkpoint retry. Each accept runs in the caller's transaction,
 * charges credits before anything is written, and creates a queued `carousel_runs` row whose pending slides
 * the worker generates (src/domain/carousels-run.ts).
 */
import { isUuid } from "../../ids.ts";
import { type CarouselFormat, isSlideCount, SLIDE_COUNTS, type SlideCount } from "./formats.ts";
import { randomUUID } from "node:crypto";
import { designFor, type Layout, type Palette } from "../../providers/render/designs.ts";
import { rowBinding, type Sealer } from "../../crypto/seal.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import { buildOutline, type Outline } from "./outline.ts";
import { chargeCredits } from "../account/credits.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { carouselPrice, carouselWithCtaPrice, PRICES } from "../account/prices.ts";
import { assertContentUnlocked, postContent, postFingerprint } from "../social/content.ts";
import { assertCaptionArgument } from "../captions/post-caption.ts";
import { assertCarouselFits } from "./destinations.ts";

export interface CarouselDesign {
  design_id: string;
  name: string;
  description: string;
  formats: CarouselFormat[];
  slide_counts: SlideCount[];
  layout: Layout;
  palette: Palette;
  /** Font families of the headline and the body. */
  fonts: { headline: string; body: string };
}

/** Active designs, by id: availability from the catalog table, looks from the renderer's design systems. */
export async function listDesigns(db: Knex): Promise<CarouselDesign[]> {
  const rows = await db("carousel_designs").where({ active: true }).orderBy("id");
  return rows.map((r: any) => {
    const d = designFor(r.id);
    return {
      design_id: r.id,
      name: r.name,
      description: r.description,
      formats: r.formats,
      slide_counts: [...r.slide_counts].sort((a: number, b: number) => a - b),
      layout: d.layout,
      palette: d.palette,
      fonts: { headline: d.fonts.headline.family, body: d.fonts.body.family },
    };
  });
}

function invalid(path: string, message: string, params: Record<string, unknown> = {}): ToolError {
  return ToolError.validation(message, { path, keyword: "enum", params });
}

/**
 * An active design that supports `slideCount` (one of SLIDE_COUNTS) and `format` (default: its first format).
 * @throws ToolError validation_failed naming the bad argument.
 */
export async function resolveDesign(
  db: Knex,
  designId: string,
  slideCount: number,
  format: string | undefined,
) {
  const d = await db("carousel_designs").where({ id: designId, active: true }).first();
  if (!d)
    throw invalid("/design_id", "design_id is not an available design; see list_carousel_formats", {
      design_id: designId,
    });
  if (!isSlideCount(slideCount))
    throw invalid("/slide_count", `slide_count must be one of ${SLIDE_COUNTS.join(", ")}`, {
      allowedValues: [...SLIDE_COUNTS],
    });
  if (!(d.slide_counts as number[]).includes(slideCount)) {
    throw invalid(
      "/slide_count",
      `design ${designId} supports slide counts ${[...d.slide_counts].sort((a: number, b: number) => a - b).join(", ")}`,
      {
        allowedValues: d.slide_counts,
      },
    );
  }
  const fmt = format ?? (d.formats as string[])[0]!;
  if (!(d.formats as string[]).includes(fmt)) {
    throw invalid("/format", `design ${designId} supports formats ${(d.formats as string[]).join(", ")}`, {
      allowedValues: d.formats,
    });
  }
  return { id: d.id as string, format: fmt, slideCount };
}

/** The owner's live product. @throws ToolError not_found. */
export async function ownedProduct(db: Knex, owner: Owner, productId: string) {
  if (!isUuid(productId)) throw notFound("product");
  const p = await db("products")
    .where(ownedBy(owner))
    .where({ id: productId })
    .whereNull("deleted_at")
    .first();
  if (!p) throw notFound("product");
  return p;
}

export interface GenerateCarousel {
  product_id: string;
  slide_count: number;
  design_id: string;
  format?: string | undefined;
  /** Extra guidance for the image briefs (data; stored sealed, never logged). */
  prompt?: string | undefined;
  /** Reuse the product's stored CTA artwork (product asset role `cta_artwork`) as the last slide. */
  use_cta_artwork?: boolean | undefined;
  /** The agent's own caption, stored as given instead of a generated one (checked by assertCaptionArgument). */
  caption?: string | undefined;
  /** Where the carousel will go: checked before any charge (./destinations.ts) and kept on the run. */
  social_account_ids?: string[] | undefined;
}

/**
 * The product's stored CTA artwork: its first live image attached with role `cta_artwork`.
 * @throws ToolError validation_failed when the product has none.
 */
export async function productCtaArtwork(db: Knex, owner: Owner, productId: string): Promise<string> {
  const row = await db("product_assets as pa")
    .join("media_assets as m", "m.id", "pa.media_asset_id")
    .where({ "pa.product_id": productId, "pa.role": "cta_artwork", "m.kind": "image" })
    .where(ownedBy(owner, "m"))
    .whereNull("m.deleted_at")
    .orderBy("pa.position")
    .first("m.id");
  if (!row) {
    throw invalid(
      "/use_cta_artwork",
      "the product has no stored CTA artwork (a product asset with role cta_artwork); upload one in the browser or set use_cta_artwork to false",
    );
  }
  return row.id as string;
}

export interface Accepted {
  post_id: string;
  run_id: string;
  credits_charged: number;
}

export interface RunMeta {
  operationId: string | undefined;
  now: Date;
  sealer: Sealer;
  /** The operation deadline (seconds): a run `running` for longer is considered stopped. */
  deadlineSeconds: number;
}

/**
 * Accepts a carousel generation: owned product (required; a prompt never replaces it), active design,
 * supported slide count and format, the agent's `caption` when given, the named destinations against the
 * carousel it would make (./destinations.ts); charges 5 credits per generated image (the CTA slide is free),
 * then creates the draft carousel post (with the agent's caption, else none until the render writes one), the
 * queued run with its outline and destinations, and pending slides.
 * @throws ToolError not_found / validation_failed / account_setup_required (a destination) / forbidden
 *   (insufficient credits; nothing written).
 */
export async function acceptCarouselGeneration(
  trx: Knex.Transaction,
  owner: Owner,
  input: GenerateCarousel,
  meta: RunMeta,
): Promise<Accepted> {
  if (input.caption !== undefined) assertCaptionArgument(input.caption);
  const product = await ownedProduct(trx, owner, input.product_id);
  const design = await resolveDesign(trx, input.design_id, input.slide_count, input.format);
  const destinations = await assertCarouselFits(trx, owner, input.social_account_ids ?? [], {
    slideCount: input.slide_count,
    format: design.format,
    caption: input.caption,
  });
  const ctaId = input.use_cta_artwork ? await productCtaArtwork(trx, owner, product.id) : undefined;
  const credits = ctaId ? carouselWithCtaPrice(input.slide_count) : carouselPrice(input.slide_count);
  const postId = randomUUID();
  const runId = randomUUID();
  await chargeCredits(trx, {
    userId: owner.userId,
    workspaceId: owner.workspaceId,
    credits,
    reason: "charge:generate_carousel",
    referenceId: runId,
    ...(meta.operationId ? { operationId: meta.operationId } : {}),
  });
  const outline: Outline = buildOutline(
    {
      name: product.name,
      description: product.description,
      brand: product.brand,
      price_minor: product.price_minor,
      currency: product.currency,
      product_url: product.product_url,
      tags: Array.isArray(product.tags) ? product.tags.map(String) : [],
    },
    design.id,
    design.format,
    design.slideCount,
  );
  await trx("posts").insert({
    id: postId,
    ...ownedBy(owner),
    type: "carousel",
    status: "draft",
    title: String(product.name).slice(0, 200),
    // The agent's caption, or null until the render writes one (src/domain/carousels/caption.ts).
    caption: input.caption ?? null,
    product_id: product.id,
    created_at: meta.now,
    updated_at: meta.now,
  });
  await trx("carousel_runs").insert({
    id: runId,
    ...ownedBy(owner),
    post_id: postId,
    product_id: product.id,
    design_id: design.id,
    format: design.format,
    slide_count: input.slide_count,
    kind: "generate",
    status: "queued",
    credits_charged: credits,
    images_charged: credits / PRICES.generated_image,
    outline: JSON.stringify(outline),
    cta_asset_id: ctaId ?? null,
    destination_account_ids: destinations.length > 0 ? JSON.stringify(destinations) : null,
    brief_sealed: input.prompt
      ? meta.sealer.seal(input.prompt, rowBinding("carousel_runs", "brief_sealed", runId))
      : null,
    operation_id: meta.operationId ?? null,
    created_at: meta.now,
    updated_at: meta.now,
  });
  await trx("carousel_slides").insert(
    outline.slides.map((s) => {
      const isCta = ctaId !== undefined && s.position === input.slide_count;
      const brief = input.prompt ? `${s.image_prompt}. Guidance: ${input.prompt}` : s.image_prompt;
      const id = randomUUID();
      return {
        id,
        post_id: postId,
        run_id: runId,
        position: s.position,
        status: "pending",
        source: isCta ? "cta_artwork" : "generated",
        headline: s.headline,
        body: s.body,
        image_prompt_sealed: meta.sealer.seal(
          brief,
          rowBinding("carousel_slides", "image_prompt_sealed", id),
        ),
        image_asset_id: null,
        created_at: meta.now,
        updated_at: meta.now,
      };
    }),
  );
  return { post_id: postId, run_id: runId, credits_charged: credits };
}

/** The owner's carousel post and its generation run. @throws ToolError not_found. */
export async function ownedCarousel(db: Knex, owner: Owner, postId: string) {
  if (!isUuid(postId)) throw notFound("carousel");
  const post = await db("posts")
    .where(ownedBy(owner))
    .where({ id: postId, type: "carousel" })
    .whereNull("deleted_at")
    .first();
  if (!post) throw notFound("carousel");
  const first = await db("carousel_runs")
    .where({ post_id: postId, kind: "generate" })
    .orderBy("created_at")
    .first();
  if (!first) throw notFound("carousel");
  return { post, first };
}

/**
 * Refuses a new run while another run of the carousel is in progress. A run rendered inside an automation
 * run's operation (no render lease) left `running` past the operation deadline (its worker died; the
 * operation is `outcome_unknown`) is closed as `failed` so that its unfinished slides can be retried; a render
 * job's run is resumed by another worker instead (src/operations/render.ts).
 */
async function assertIdle(db: Knex, postId: string, meta: RunMeta): Promise<void> {
  const staleBefore = new Date(meta.now.getTime() - meta.deadlineSeconds * 1000);
  await db("carousel_runs")
    .where({ post_id: postId, status: "running", render_attempts: 0 })
    .where("updated_at", "<", staleBefore)
    .update({ status: "failed", error: "the run stopped before finishing", updated_at: meta.now });
  const busy = await db("carousel_runs")
    .where({ post_id: postId })
    .whereIn("status", ["queued", "running"])
    .first("id");
  if (busy) {
    throw new ToolError(
      "validation_failed",
      "a generation run of this carousel is still in progress; poll get_carousel until it finishes",
      {
        run_id: busy.id,
      },
    );
  }
}

/** What a slide regeneration redoes: a new visual (5 credits), new copy or a new layout (0 credits). */
export type Redo = "image" | "copy" | "layout";

/**
 * Queues the given slides (positions) of an owned carousel again as a new run of `kind`, charging 5 credits
 * per newly generated image (`redo` = image; copy and layout re-render from the stored visual for 0).
 * Shared by regeneration (one slide) and checkpoint retry (the failed slides). The post's `updated_at`
 * moves, so a pending approval of the post becomes stale.
 */
async function requeueSlides(
  trx: Knex.Transaction,
  owner: Owner,
  carousel: Awaited<ReturnType<typeof ownedCarousel>>,
  positions: number[],
  kind: "regenerate_slide" | "retry",
  meta: RunMeta,
  opts: { redo?: Redo; instructions?: string | undefined; designId?: string | undefined } = {},
): Promise<Accepted> {
  const { first, post } = carousel;
  const before = await postContent(trx, post.id);
  const redo = opts.redo ?? "image";
  const instructions = opts.instructions;
  const slides: Array<{
    id: string;
    position: number;
    source: string;
    image_prompt_sealed: string | null;
    visual_key: string | null;
  }> = await trx("carousel_slides")
    .where({ post_id: post.id })
    .whereIn("position", positions)
    .select("id", "position", "source", "image_prompt_sealed", "visual_key");
  if (redo !== "image" && slides.some((x) => x.source !== "cta_artwork" && !x.visual_key)) {
    throw invalid(
      "/what",
      `what=${redo} re-renders the slide from its stored image, but this slide has no image yet; use what=image`,
      { allowedValues: ["image"] },
    );
  }
  const generated = redo === "image" ? slides.filter((x) => x.source !== "cta_artwork").length : 0;
  const credits = generated * PRICES.generated_image;
  const runId = randomUUID();
  await chargeCredits(trx, {
    userId: owner.userId,
    workspaceId: owner.workspaceId,
    credits,
    reason: `charge:${kind === "retry" ? "retry_carousel" : "regenerate_carousel_slide"}`,
    referenceId: runId,
    ...(meta.operationId ? { operationId: meta.operationId } : {}),
  });
  await trx("carousel_runs").insert({
    id: runId,
    ...ownedBy(owner),
    post_id: post.id,
    product_id: first.product_id,
    design_id: first.design_id,
    format: first.format,
    slide_count: positions.length,
    kind,
    status: "queued",
    credits_charged: credits,
    images_charged: generated,
    outline: JSON.stringify(first.outline),
    cta_asset_id: first.cta_asset_id ?? null,
    // The first run's prompt, sealed again for this run's row (a sealed value is bound to its row).
    brief_sealed: first.brief_sealed
      ? meta.sealer.seal(
          meta.sealer.open<string>(first.brief_sealed, rowBinding("carousel_runs", "brief_sealed", first.id)),
          rowBinding("carousel_runs", "brief_sealed", runId),
        )
      : null,
    redo: kind === "regenerate_slide" ? redo : null,
    instructions_sealed:
      redo === "copy" && instructions
        ? meta.sealer.seal(instructions, rowBinding("carousel_runs", "instructions_sealed", runId))
        : null,
    operation_id: meta.operationId ?? null,
    created_at: meta.now,
    updated_at: meta.now,
  });
  for (const slide of slides) {
    const update: Record<string, unknown> = {
      run_id: runId,
      status: "pending",
      error: null,
      updated_at: meta.now,
    };
    if (opts.designId) update.design_id = opts.designId;
    if (redo === "image" && instructions && slide.source !== "cta_artwork") {
      const binding = rowBinding("carousel_slides", "image_prompt_sealed", slide.id);
      const brief = slide.image_prompt_sealed
        ? meta.sealer.open<string>(slide.image_prompt_sealed, binding)
        : "";
      update.image_prompt_sealed = meta.sealer.seal(`${brief}. Change: ${instructions}`, binding);
    }
    await trx("carousel_slides").where({ id: slide.id }).update(update);
  }
  // An approved carousel goes back to draft. A published or failed one keeps its status (it is on a network),
  // and keeps the fingerprint of what was approved, so its new slides are not published again before a new
  // approve_carousel (src/domain/social/content.ts `assertCarouselStillApproved`); one approved before
  // fingerprints were recorded gets the fingerprint of its content as it was until now.
  const approvedFingerprint =
    post.status !== "approved" && post.status !== "draft" && !post.approved_fingerprint
      ? postFingerprint(before)
      : undefined;
  await trx("posts")
    .where({ id: post.id })
    .update({
      ...(post.status === "approved" ? { status: "draft" } : {}),
      ...(approvedFingerprint ? { approved_fingerprint: approvedFingerprint } : {}),
      updated_at: meta.now,
    });
  return { post_id: post.id, run_id: runId, credits_charged: credits };
}

/**
 * Accepts the regeneration of one slide (1-based `position`). `what` = `image` (default, 5 credits)
 * generates a new visual, with optional `instructions` added to its image brief; `copy` (0 credits) writes
 * new headline and body with the text provider (instructions join the brief); `layout` (0 credits)
 * re-renders the slide from its stored visual and copy, in `design_id` when given (an active design that
 * supports the carousel's format). A slide that reuses stored CTA artwork takes the current artwork again
 * for 0 credits. Approval is withdrawn (back to draft) and a pending approval becomes stale.
 * @throws ToolError not_found / validation_failed (no such position, unknown design, no stored visual, run
 * in progress, a pending schedule or unpublished delivery locks the approved slides) / forbidden (credits).
 */
export async function acceptSlideRegeneration(
  trx: Knex.Transaction,
  owner: Owner,
  input: {
    post_id: string;
    position: number;
    instructions?: string | undefined;
    what?: Redo | undefined;
    design_id?: string | undefined;
  },
  meta: RunMeta,
): Promise<Accepted> {
  const carousel = await ownedCarousel(trx, owner, input.post_id);
  await assertContentUnlocked(trx, input.post_id, "regenerate_carousel_slide cannot change the slides now");
  const slide = await trx("carousel_slides")
    .where({ post_id: input.post_id, position: input.position })
    .first("id");
  if (!slide) {
    throw invalid("/position", `position must be between 1 and ${carousel.first.slide_count}`, {
      maximum: carousel.first.slide_count,
    });
  }
  const what = input.what ?? "image";
  if (input.design_id !== undefined) {
    if (what !== "layout")
      throw invalid("/design_id", "design_id applies only with what=layout", { allowedValues: ["layout"] });
    const d = await trx("carousel_designs").where({ id: input.design_id, active: true }).first("formats");
    if (!d || !(d.formats as string[]).includes(carousel.first.format ?? "square"))
      throw invalid(
        "/design_id",
        `design_id must be an available design (list_carousel_formats) that supports the carousel's format ${carousel.first.format}`,
        { design_id: input.design_id },
      );
  }
  await assertIdle(trx, input.post_id, meta);
  return requeueSlides(trx, owner, carousel, [input.position], "regenerate_slide", meta, {
    redo: what,
    instructions: input.instructions,
    designId: input.design_id,
  });
}

/**
 * Accepts a checkpoint retry: only the failed or unfinished slides are generated again, 5 credits each;
 * ready slides are kept.
 * @throws ToolError not_found / validation_failed (nothing failed, run in progress, a pending schedule or
 * unpublished delivery locks the approved slides) / forbidden (credits).
 */
export async function acceptCarouselRetry(
  trx: Knex.Transaction,
  owner: Owner,
  input: { post_id: string },
  meta: RunMeta,
): Promise<Accepted> {
  const carousel = await ownedCarousel(trx, owner, input.post_id);
  await assertContentUnlocked(trx, input.post_id, "retry_carousel cannot change the slides now");
  await assertIdle(trx, input.post_id, meta);
  const failed: Array<{ position: number }> = await trx("carousel_slides")
    .where({ post_id: input.post_id })
    .whereIn("status", ["failed", "pending", "generating"])
    .orderBy("position")
    .select("position");
  if (failed.length === 0) {
    throw new ToolError(
      "validation_failed",
      "the carousel has no failed or unfinished slides to retry; use regenerate_carousel_slide to replace a ready slide",
    );
  }
  return requeueSlides(
    trx,
    owner,
    carousel,
    failed.map((f) => f.position),
    "retry",
    meta,
  );
}
