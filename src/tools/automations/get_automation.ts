/** get_automation: one owned automation with its configuration, CTA asset and daily times. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { automationView, ownedAutomation } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["get_automation"];

export const handler: ToolHandler<ToolInputs["get_automation"], Output> = {
  async execute(input, ctx) {
    const row = await ownedAutomation(ctx.db, ownerOf(ctx.auth), input.automation_id);
    return { data: automationView(row) as unknown as Output };
  },
};
