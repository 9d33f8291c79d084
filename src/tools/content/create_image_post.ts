/** create_image_post: saves an image draft from the caller's own image assets (ids only, no download). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { createImagePost } from "../../domain/content/posts.ts";

export const handler: ToolHandlers["create_image_post"] = {
  async execute(input, ctx) {
    const post = await createImagePost(ctx.db, ownerOf(ctx.auth), input);
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
