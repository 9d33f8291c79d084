/**
 * approve_carousel (review, service spec 3.1): `describe` checks at call time that the carousel is the
 * caller's and fully generated, and shows every slide, the caption and what the owner's connected networks
 * would refuse of it (validate.ts `connectedAccountProblems`) on the approval page (a later change to the post
 * makes the request stale); `execute` (worker, after the owner
 * approved in the browser) moves the post to `approved`.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { approveCarousel, assertApprovable } from "../../domain/carousels/read.ts";
import { postLabel } from "../../domain/social/publish.ts";
import { approvalWarnings, connectedAccountProblems } from "../../domain/social/validate.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["approve_carousel"] = {
  async describe(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const view = await assertApprovable(ctx.db, owner, input.post_id);
    const post = await ctx
      .db("posts")
      .where({ id: input.post_id })
      .first("type", "caption", "title", "media_asset_ids", "updated_at");
    const slides: Array<{ position: number; headline: string | null; image_asset_id: string }> = await ctx
      .db("carousel_slides")
      .where({ post_id: input.post_id })
      .whereNotNull("image_asset_id")
      .orderBy("position")
      .select("position", "headline", "image_asset_id");
    return {
      summary: `Approve the ${view.slide_count}-slide carousel “${postLabel(post)}” so it can be published or scheduled.`,
      resources: [{ kind: "post", id: input.post_id, label: postLabel(post) }],
      destinations: [],
      images: slides.map((s) => ({
        asset_id: s.image_asset_id,
        label: `Slide ${s.position}/${view.slide_count}${s.headline ? `: ${s.headline}` : ""}`,
      })),
      text: post.caption ?? undefined,
      warnings: approvalWarnings(
        await connectedAccountProblems(ctx.db, owner, { ...post, id: input.post_id }),
      ),
      versions: [{ table: "posts", id: input.post_id, updated_at: new Date(post.updated_at).toISOString() }],
    };
  },
  async execute(input, ctx) {
    const out = await approveCarousel(ctx.db, ownerOf(ctx.auth), input.post_id, ctx.app.clock.now());
    return {
      data: { post_id: out.post_id, status: out.status },
    };
  },
};
