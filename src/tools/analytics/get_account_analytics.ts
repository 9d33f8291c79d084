/** get_account_analytics (Pro): saved lifetime counters per connected account as of the last sync. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { accountAnalytics, assertAnalyticsPlan } from "../../domain/analytics/analytics.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["get_account_analytics"];

export const handler: ToolHandler<ToolInputs["get_account_analytics"], Output> = {
  async execute(input, ctx) {
    await assertAnalyticsPlan(ctx.db, ctx.auth.userId);
    return { data: (await accountAnalytics(ctx.db, ownerOf(ctx.auth), input)) as Output };
  },
};
