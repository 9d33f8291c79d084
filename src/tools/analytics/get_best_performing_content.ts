/** get_best_performing_content (Pro): up to 5 published deliveries ranked by available saved views. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { assertAnalyticsPlan, bestPerformingContent } from "../../domain/analytics/analytics.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["get_best_performing_content"];

export const handler: ToolHandler<ToolInputs["get_best_performing_content"], Output> = {
  async execute(input, ctx) {
    await assertAnalyticsPlan(ctx.db, ctx.auth.userId);
    return { data: (await bestPerformingContent(ctx.db, ownerOf(ctx.auth), input)) as Output };
  },
};
