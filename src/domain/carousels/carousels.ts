/**
 * Carousels (service spec 1.7, 2.7, 3.1 rule 2, 4.2 rule 5, 8): the design catalog and the accept part of
 * generation (targeted slide regeneration and checkpoint retry: ./regenerate.ts). Each accept runs in the
 * caller's transaction, charges credits before anything is written, and creates a queued `carousel_runs` row
 * whose pending slides the worker generates (./run.ts).
 */
import { isUuid } from "../../ids.ts";
import { type CarouselFormat, isSlideCount, SLIDE_COUNTS, type SlideCount } from "./formats.ts";
import { randomUUID } from "node:crypto";
import { designFor, type Layout, type Palette } from "../../providers/render/designs.ts";
import { rowBinding } from "../../crypto/seal.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound } from "../../errors.ts";
import { buildOutline, type Outline } from "./outline.ts";
import { chargeCredits } from "../account/credits.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { carouselPrice, carouselWithCtaPrice, PRICES } from "../account/prices.ts";
import { assertCaptionArgument } from "../captions/post-caption.ts";
import { assertCarouselFits } from "./destinations.ts";
import { type Accepted, invalid, type RunMeta } from "./accept.ts";

// Also importable from here (test/web/review.content-binding.test.ts).
export { acceptSlideRegeneration } from "./regenerate.ts";

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
