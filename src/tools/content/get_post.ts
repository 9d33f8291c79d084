/** get_post: one owned post with its carousel and delivery summaries; others' posts are `not_found`. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { getPost } from "../../domain/content/posts.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["get_post"], ToolOutputs["get_post"]> = {
  async execute(input, ctx) {
    return { data: (await getPost(ctx.db, ownerOf(ctx.auth), input.post_id)) as ToolOutputs["get_post"] };
  },
};
