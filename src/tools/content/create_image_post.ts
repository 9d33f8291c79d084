/** create_image_post: saves an image draft from the caller's own image assets (ids only, no download). */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { createImagePost } from "../../domain/content/posts.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["create_image_post"], ToolOutputs["create_image_post"]> = {
  async execute(input, ctx) {
    const post = await createImagePost(ctx.db, ownerOf(ctx.auth), {
      media_asset_ids: input.media_asset_ids,
      caption: input.caption,
      status: input.status,
      title: input.title,
      product_id: input.product_id,
    });
    const { carousel: _c, deliveries: _d, ...summary } = post;
    return { data: summary as ToolOutputs["create_image_post"] };
  },
};
