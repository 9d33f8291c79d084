/** get_post: one owned post with its carousel and delivery summaries; others' posts are `not_found`. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { getPost } from "../../domain/content/posts.ts";

export const handler: ToolHandlers["get_post"] = {
  async execute(input, ctx) {
    return { data: await getPost(ctx.db, ownerOf(ctx.auth), input.post_id) };
  },
};
