/** list_media: the caller's images and videos in the consented workspace, newest first. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { listMedia } from "../../domain/media/media.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["list_media"], ToolOutputs["list_media"]> = {
  async execute(input, ctx) {
    const page = await listMedia(ctx.db, ownerOf(ctx.auth), {
      limit: input.limit,
      cursor: input.cursor,
      kind: input.kind,
    });
    return { data: page as ToolOutputs["list_media"] };
  },
};
