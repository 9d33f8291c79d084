/**
 * get_account_analytics (Pro): saved lifetime counters per connected account as of its last successful sync,
 * with coverage, missing metrics, source (network or sandbox) and the last sync error.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { accountAnalytics, assertAnalyticsPlan } from "../../domain/analytics/analytics.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["get_account_analytics"] = {
  async execute(input, ctx) {
    await assertAnalyticsPlan(ctx.db, ctx.auth.userId);
    return { data: await accountAnalytics(ctx.db, ownerOf(ctx.auth), input) };
  },
};
