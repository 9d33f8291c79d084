/**
 * disable_automation (review): `describe` checks ownership at call time and names the automation; `execute`
 * (worker, after approval) sets its status to `disabled`.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { setAutomationStatus } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import { describeAutomation } from "./describe-automation.ts";

export const handler: ToolHandlers["disable_automation"] = {
  async describe(input, ctx) {
    return describeAutomation(
      ctx,
      input.automation_id,
      (name, kind) => `Disable the ${kind} automation “${name}”; it stops running at its daily times.`,
    );
  },
  async execute(input, ctx) {
    const a = await setAutomationStatus(
      ctx.db,
      ownerOf(ctx.auth),
      input.automation_id,
      "disabled",
      ctx.app.clock.now(),
    );
    return { data: { automation_id: a.automation_id, status: a.status } };
  },
};
