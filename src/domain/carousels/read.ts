/**
 * Reading carousels (service spec 1.7, 3.1 rule 2): `getCarousel` is the polling view (latest run progress
 * and every slide); `getCarouselOutline` returns the saved plan, which is not a generation job.
 */
import type { Knex } from "../../db/knex.ts";
import { pick, pickOrNull } from "../../db/rows.ts";
import { ToolError } from "../../errors.ts";
import type { Outline } from "./outline.ts";
import { slideMadeBy } from "../content/made-by.ts";
import { postContent, postFingerprint } from "../social/content.ts";
import { ownedCarousel } from "./regenerate.ts";
import type { Owner } from "../owner.ts";
import type { PostStatus } from "../content/posts.ts";
import type { RunStatus } from "../runs.ts";
import type { CarouselFormat, SlideCount } from "./formats.ts";

/** Slide statuses (service spec 2.7). */
export type SlideStatus = "pending" | "generating" | "ready" | "failed";
/** What a carousel run does. */
export type RunKind = "generate" | "regenerate_slide" | "retry";

export interface SlideView {
  position: number;
  status: SlideStatus;
  source: string;
  headline: string | null;
  body: string | null;
  image_asset_id: string | null;
  error: string | null;
  /** Who made the slide's copy and image (`local` when the offline stand-in made either); null: none. */
  provider: string | null;
}

export interface RunView {
  run_id: string;
  kind: RunKind;
  status: RunStatus;
  credits_charged: number;
  slide_count: number;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface CarouselView {
  post_id: string;
  post_status: PostStatus;
  /** The post's caption: the agent's, the generated one, or null until the render has written it. */
  caption: string | null;
  /** Who wrote the caption (`local`: the offline stand-in); null for the agent's own or none yet. */
  caption_provider: string | null;
  product_id: string | null;
  design_id: string;
  format: CarouselFormat;
  slide_count: SlideCount;
  /** The latest run's status. */
  status: RunStatus;
  /** The destinations the carousel was generated for (generate_carousel `social_account_ids`); [] when none. */
  destination_account_ids: string[];
  progress: { total: number; ready: number; pending: number; generating: number; failed: number };
  latest_run: RunView;
  slides: SlideView[];
}

function runView(r: any): RunView {
  return {
    run_id: r.id,
    ...pick(r, ["kind", "status", "credits_charged", "slide_count"]),
    error: r.error ?? null,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** The owner's carousel with generation progress and slides. @throws ToolError not_found. */
export async function getCarousel(db: Knex, owner: Owner, postId: string): Promise<CarouselView> {
  const { post, first } = await ownedCarousel(db, owner, postId);
  const latest = await db("carousel_runs")
    .where({ post_id: postId })
    .orderBy([
      { column: "created_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .first();
  const slides = await db("carousel_slides").where({ post_id: postId }).orderBy("position");
  const count = (s: string) => slides.filter((x: any) => x.status === s).length;
  return {
    post_id: post.id,
    post_status: post.status,
    caption: post.caption ?? null,
    caption_provider: post.caption_provider ?? null,
    product_id: first.product_id ?? null,
    design_id: first.design_id,
    format: first.format ?? "square",
    slide_count: first.slide_count,
    status: latest.status,
    destination_account_ids: Array.isArray(first.destination_account_ids)
      ? first.destination_account_ids.map(String)
      : [],
    progress: {
      total: slides.length,
      ready: count("ready"),
      pending: count("pending"),
      generating: count("generating"),
      failed: count("failed"),
    },
    latest_run: runView(latest),
    slides: slides.map((s: any) => ({
      ...pick(s, ["position", "status", "source"]),
      ...pickOrNull(s, ["headline", "body", "image_asset_id", "error"]),
      provider: slideMadeBy(s),
    })),
  };
}

/** The saved slide plan of the owner's carousel (headline, body and role per slide; no prompts). */
export async function getCarouselOutline(db: Knex, owner: Owner, postId: string) {
  const { first } = await ownedCarousel(db, owner, postId);
  const outline = first.outline as Outline;
  return {
    post_id: postId,
    product_id: first.product_id ?? null,
    design_id: outline.design_id,
    format: outline.format,
    slide_count: outline.slide_count,
    slides: outline.slides.map((s) => ({
      position: s.position,
      role: s.role,
      headline: s.headline,
      body: s.body,
    })),
  };
}

/**
 * Checks that the owner's carousel can be approved: every slide ready and no run in progress.
 * @throws ToolError not_found / validation_failed.
 */
export async function assertApprovable(db: Knex, owner: Owner, postId: string) {
  const view = await getCarousel(db, owner, postId);
  if (view.progress.total === 0 || view.progress.ready !== view.progress.total) {
    throw new ToolError(
      "validation_failed",
      `the carousel is not ready to approve: ${view.progress.ready} of ${view.progress.total} slides are ready; poll get_carousel or use retry_carousel`,
    );
  }
  return view;
}

/**
 * Approves the owner's carousel (the approved effect of `approve_carousel`, service spec 3.1): the post moves
 * to `approved`, with `caption` (the approved one, already checked) replacing its caption when given, and
 * records the fingerprint of the approved content (`posts.approved_fingerprint`; a published carousel keeps
 * its status, and its regenerated slides may be published again from now on).
 * Re-checks readiness at execution time.
 * @throws ToolError not_found / validation_failed.
 */
export async function approveCarousel(
  db: Knex,
  owner: Owner,
  postId: string,
  now: Date,
  caption?: string | undefined,
) {
  const view = await assertApprovable(db, owner, postId);
  // The approved caption is the agent's (or the user's): no provider wrote it.
  const update: Record<string, unknown> = caption === undefined ? {} : { caption, caption_provider: null };
  if (view.post_status === "draft" || view.post_status === "needs_review") update.status = "approved";
  // What was approved: a later regeneration changes the content, and the carousel is not published again
  // until it is approved again (src/domain/social/content.ts `assertCarouselStillApproved`).
  const content = await postContent(db, postId);
  update.approved_fingerprint = postFingerprint(caption === undefined ? content : { ...content, caption });
  // Only a new caption or status moves `updated_at` (which other pending requests were described from).
  const changes = caption !== undefined || update.status !== undefined;
  await db("posts")
    .where({ id: postId })
    .update(changes ? { ...update, updated_at: now } : update);
  const post = await db("posts").where({ id: postId }).first("status");
  const status: PostStatus = post.status;
  return { post_id: postId, status };
}
