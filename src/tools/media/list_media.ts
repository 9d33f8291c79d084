/** list_media: the caller's images and videos in the consented workspace, newest first. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { listMedia } from "../../domain/media/media.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["list_media"] = {
  async execute(input, ctx) {
    return { data: await listMedia(ctx.db, ownerOf(ctx.auth), input) };
  },
};
