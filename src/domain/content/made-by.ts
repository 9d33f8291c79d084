/**
 * Who made a post's generated content (../ai-fallback.ts), for get_post, the approval pages and the views:
 * its caption (`posts.caption_provider`: null for the agent's or user's own), each carousel slide (copy and
 * image: `local` when the stand-in made either, src/domain/carousels/run.ts) and a generated video (the run's
 * `result.video.provider`, src/domain/automations/run.ts); the post's media as a whole is `local` when the
 * stand-in made any of it.
 */
import type { Knex } from "../../db/knex.ts";
import { type MadeBy, madeByAll } from "../ai-fallback.ts";

/** Who made a carousel slide: its copy and its image (null for stored CTA artwork and older slides). */
export function slideMadeBy(slide: { copy_provider?: string | null; image_provider?: string | null }) {
  return madeByAll([slide.copy_provider, slide.image_provider]);
}

export interface PostMadeBy {
  caption: MadeBy | null;
  /** The post's media as a whole (a carousel's slides, a generated video); null when none was generated. */
  media: MadeBy | null;
  /** Per media asset (a slide's image, the video), who made it; absent: not generated. */
  byAsset: Map<string, MadeBy | null>;
}

/**
 * Who made the generated parts of `post` (a `posts` row with at least id, type, caption_provider and
 * automation_run_id). Reads the carousel's slides or the video run's result.
 */
export async function postMadeBy(
  db: Knex,
  post: { id: string; type: string; caption_provider?: string | null; automation_run_id?: string | null },
): Promise<PostMadeBy> {
  const byAsset = new Map<string, MadeBy | null>();
  let media: MadeBy | null = null;
  if (post.type === "carousel") {
    const slides: Array<{
      image_asset_id: string;
      copy_provider: string | null;
      image_provider: string | null;
    }> = await db("carousel_slides")
      .where({ post_id: post.id, status: "ready" })
      .whereNotNull("image_asset_id")
      .select("image_asset_id", "copy_provider", "image_provider");
    for (const s of slides) byAsset.set(s.image_asset_id, slideMadeBy(s));
    media = madeByAll([...byAsset.values()]);
  } else if (post.type === "video" && post.automation_run_id) {
    const run = await db("automation_runs").where({ id: post.automation_run_id }).first("result");
    const video = (run?.result as { video?: { asset_id?: unknown; provider?: unknown } } | null)?.video;
    if (video && typeof video.asset_id === "string") {
      media = typeof video.provider === "string" ? video.provider : null;
      byAsset.set(video.asset_id, media);
    }
  }
  return { caption: post.caption_provider ?? null, media, byAsset };
}

/**
 * The generated parts of `post` and who made each, in reading order (slides by position, the caption, the
 * video), for an approval page (`ApprovalDescription.made_by`). `withCaption` false leaves the caption out
 * (a caption the request replaces).
 */
export async function madeByParts(
  db: Knex,
  post: { id: string; type: string; caption_provider?: string | null; automation_run_id?: string | null },
  withCaption = true,
): Promise<Array<{ part: string; provider: MadeBy }>> {
  const parts: Array<{ part: string; provider: MadeBy }> = [];
  if (post.type === "carousel") {
    const slides: Array<{ position: number; copy_provider: string | null; image_provider: string | null }> =
      await db("carousel_slides")
        .where({ post_id: post.id, status: "ready" })
        .orderBy("position")
        .select("position", "copy_provider", "image_provider");
    for (const s of slides) {
      const provider = slideMadeBy(s);
      if (provider) parts.push({ part: `slide ${s.position}`, provider });
    }
  } else if (post.type === "video") {
    const { media } = await postMadeBy(db, post);
    if (media) parts.push({ part: "video", provider: media });
  }
  if (withCaption && post.caption_provider) parts.push({ part: "caption", provider: post.caption_provider });
  return parts;
}
