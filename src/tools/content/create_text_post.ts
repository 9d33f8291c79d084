/** create_text_post: saves a text draft (service spec 4.3); nothing is published. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { createTextPost } from "../../domain/content/posts.ts";

export const handler: ToolHandlers["create_text_post"] = {
  async execute(input, ctx) {
    const post = await createTextPost(ctx.db, ownerOf(ctx.auth), input);
    const {
      carousel: _c,
      deliveries: _d,
      caption_provider: _cp,
      media_provider: _mp,
      alt_texts: _a,
      ...summary
    } = post;
    return { data: summary };
  },
};
