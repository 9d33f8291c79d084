/** list_content: the caller's posts and drafts, newest first, filtered by status/type (keyset cursor). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { listContent } from "../../domain/content/posts.ts";

export const handler: ToolHandlers["list_content"] = {
  async execute(input, ctx) {
    const page = await listContent(ctx.db, ownerOf(ctx.auth), {
      limit: input.limit,
      cursor: input.cursor,
      status: input.status,
      type: input.type,
    });
    return { data: page };
  },
};
