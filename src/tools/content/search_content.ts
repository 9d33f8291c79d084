/** search_content: ranked full-text search over the caller's post titles and captions (bounded). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { searchContent } from "../../domain/content/search.ts";

export const handler: ToolHandlers["search_content"] = {
  async execute(input, ctx) {
    const { items } = await searchContent(ctx.db, ownerOf(ctx.auth), input);
    return { data: { items } };
  },
};
