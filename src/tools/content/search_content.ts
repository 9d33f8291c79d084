/** search_content: ranked full-text search over the caller's post titles and captions (bounded). */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { searchContent } from "../../domain/content/search.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["search_content"], ToolOutputs["search_content"]> = {
  async execute(input, ctx) {
    const { items } = await searchContent(ctx.db, ownerOf(ctx.auth), {
      query: input.query,
      limit: input.limit,
      status: input.status,
      type: input.type,
    });
    return { data: { items } as ToolOutputs["search_content"] };
  },
};
