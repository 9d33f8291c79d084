/** get_media: one owned asset by database id (never a path); others' assets are `not_found`. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { getMedia } from "../../domain/media/media.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["get_media"] = {
  async execute(input, ctx) {
    return { data: await getMedia(ctx.db, ownerOf(ctx.auth), input.asset_id) };
  },
};
