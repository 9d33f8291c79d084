/** list_content: the caller's posts and drafts, newest first, filtered by status/type (keyset cursor). */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { listContent } from "../../domain/content/posts.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["list_content"], ToolOutputs["list_content"]> = {
  async execute(input, ctx) {
    const page = await listContent(ctx.db, ownerOf(ctx.auth), {
      limit: input.limit,
      cursor: input.cursor,
      status: input.status,
      type: input.type,
    });
    return { data: page as ToolOutputs["list_content"] };
  },
};
