/**
 * get_post_analytics (Pro): saved counters of each published delivery of an owned post, with coverage,
 * missing metrics, source (network or sandbox) and the last sync error.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { assertAnalyticsPlan, postAnalytics } from "../../domain/analytics/analytics.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["get_post_analytics"] = {
  async execute(input, ctx) {
    await assertAnalyticsPlan(ctx.db, ctx.auth.userId);
    return { data: await postAnalytics(ctx.db, ownerOf(ctx.auth), input.post_id) };
  },
};
