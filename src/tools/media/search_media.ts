/** search_media: ranked full-text search over the caller's media titles, file names and labels. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { searchMedia } from "../../domain/media/media.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["search_media"] = {
  async execute(input, ctx) {
    const { items } = await searchMedia(ctx.db, ownerOf(ctx.auth), input);
    return { data: { items } };
  },
};
