/**
 * get_automation: one owned automation with its configuration, CTA asset, daily times and review state
 * (`review_status`, `review_reason`: src/domain/automations/publish-binding.ts).
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { automationOutput, ownedAutomation } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["get_automation"] = {
  async execute(input, ctx) {
    const row = await ownedAutomation(ctx.db, ownerOf(ctx.auth), input.automation_id);
    return { data: await automationOutput(ctx.db, row) };
  },
};
