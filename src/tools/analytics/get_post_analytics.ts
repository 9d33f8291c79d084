/** get_post_analytics (Pro): saved counters of each published delivery of an owned post. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { assertAnalyticsPlan, postAnalytics } from "../../domain/analytics/analytics.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["get_post_analytics"];

export const handler: ToolHandler<ToolInputs["get_post_analytics"], Output> = {
  async execute(input, ctx) {
    await assertAnalyticsPlan(ctx.db, ctx.auth.userId);
    return { data: (await postAnalytics(ctx.db, ownerOf(ctx.auth), input.post_id)) as Output };
  },
};
