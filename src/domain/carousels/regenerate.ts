/**
 * Carousel slide regeneration and checkpoint retry (service spec 3.1 rule 2, 4.2 rule 5): the accept parts
 * that queue slides of an owned carousel again as a new run, in the caller's transaction, charging credits
 * before anything is written; the worker generates the pending slides (./run.ts).
 */
import { randomUUID } from "node:crypto";
import { rowBinding } from "../../crypto/seal.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import { isUuid } from "../../ids.ts";
import { chargeCredits } from "../account/credits.ts";
import { PRICES } from "../account/prices.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { assertContentUnlocked, postContent, postFingerprint } from "../social/content.ts";
import { type Accepted, invalid, type RunMeta } from "./accept.ts";

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
