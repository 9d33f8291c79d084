/** get_best_performing_content (Pro): up to 5 published deliveries ranked by saved views (`ranked_by`). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { assertAnalyticsPlan, bestPerformingContent } from "../../domain/analytics/analytics.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["get_best_performing_content"] = {
  async execute(input, ctx) {
    await assertAnalyticsPlan(ctx.db, ctx.auth.userId);
    return { data: await bestPerformingContent(ctx.db, ownerOf(ctx.auth), input) };
  },
};
