/**
 * The shared handler of enable_automation and disable_automation (review tools, service spec 4.4): `describe`
 * checks ownership at call time and names the automation in `sentence`; `execute` (worker, after approval)
 * sets the status through `setAutomationStatus` (enabling validates the definition again).
 */
import type { ToolInputs, ToolResults } from "../../../generated/tool-types.ts";
import { setAutomationStatus } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ReviewToolHandler } from "../../tool-contract.ts";
import { describeAutomation } from "./describe-automation.ts";

type Status = "enabled" | "disabled";

/**
 * The handler that sets an owned automation's status to `status`; `sentence(name, kind)` is the approval
 * page's summary. Execute returns `{automation_id, status}`. @throws ToolError not_found (foreign or missing
 * automation), validation_failed (enabling a definition that is no longer valid).
 */
export function automationStatusHandler(
  status: Status,
  sentence: (name: string, kind: string) => string,
): ReviewToolHandler<
  ToolInputs["enable_automation" | "disable_automation"],
  ToolResults["enable_automation"]
> {
  return {
    async describe(input, ctx) {
      return describeAutomation(ctx, input.automation_id, sentence);
    },
    async execute(input, ctx) {
      const owner = ownerOf(ctx.auth);
      const a = await setAutomationStatus(ctx.db, owner, input.automation_id, status, ctx.app.clock.now());
      return { data: { automation_id: a.automation_id, status: a.status } };
    },
  };
}
