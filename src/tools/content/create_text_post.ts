/** create_text_post: saves a text draft (service spec 4.3); nothing is published. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { createTextPost } from "../../domain/content/posts.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["create_text_post"], ToolOutputs["create_text_post"]> = {
  async execute(input, ctx) {
    const post = await createTextPost(ctx.db, ownerOf(ctx.auth), {
      caption: input.caption,
      status: input.status,
      title: input.title,
      product_id: input.product_id,
    });
    const { carousel: _c, deliveries: _d, ...summary } = post;
    return { data: summary as ToolOutputs["create_text_post"] };
  },
};
