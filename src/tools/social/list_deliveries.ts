/** list_deliveries: the owner's delivery records, newest first, optionally of one post; `post_url` once published. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { listDeliveries } from "../../domain/social/deliveries.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["list_deliveries"];

export const handler: ToolHandler<ToolInputs["list_deliveries"], Output> = {
  async execute(input, ctx) {
    const page = await listDeliveries(ctx.db, ownerOf(ctx.auth), {
      post_id: input.post_id,
      limit: input.limit,
      cursor: input.cursor,
    });
    return { data: page as Output };
  },
};
