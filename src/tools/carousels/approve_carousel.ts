/**
 * approve_carousel (review, service spec 3.1): `describe` checks at call time that the carousel is the
 * caller's and fully generated, and names it on the approval page; `execute` (worker, after the owner
 * approved in the browser) moves the post to `approved`.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { approveCarousel, assertApprovable } from "../../domain/carousels/read.ts";
import { postLabel } from "../../domain/social/publish.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["approve_carousel"] = {
  async describe(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const view = await assertApprovable(ctx.db, owner, input.post_id);
    const post = await ctx.db("posts").where({ id: input.post_id }).first("type", "caption", "title");
    return {
      summary: `Approve the ${view.slide_count}-slide carousel “${postLabel(post)}” so it can be published or scheduled.`,
      resources: [{ kind: "post", id: input.post_id, label: postLabel(post) }],
      destinations: [],
    };
  },
  async execute(input, ctx) {
    const out = await approveCarousel(ctx.db, ownerOf(ctx.auth), input.post_id, ctx.app.clock.now());
    return {
      data: { post_id: out.post_id, status: out.status },
    };
  },
};
