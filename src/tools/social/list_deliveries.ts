/** list_deliveries: the owner's delivery records, newest first, optionally of one post; `post_url` once published. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { listDeliveries } from "../../domain/social/deliveries.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["list_deliveries"] = {
  async execute(input, ctx) {
    return { data: await listDeliveries(ctx.db, ownerOf(ctx.auth), input) };
  },
};
