/** search_media: ranked full-text search over the caller's media titles, file names and labels. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { searchMedia } from "../../domain/media/media.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["search_media"], ToolOutputs["search_media"]> = {
  async execute(input, ctx) {
    const { items } = await searchMedia(ctx.db, ownerOf(ctx.auth), {
      query: input.query,
      limit: input.limit,
      kind: input.kind,
    });
    return { data: { items } as ToolOutputs["search_media"] };
  },
};
