/**
 * disable_automation (review): `describe` checks ownership at call time and names the automation; `execute`
 * (worker, after approval) sets its status to `disabled` (./status-handler.ts).
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { automationStatusHandler } from "./status-handler.ts";

export const handler: ToolHandlers["disable_automation"] = automationStatusHandler(
  "disabled",
  (name, kind) => `Disable the ${kind} automation “${name}”; it stops running at its daily times.`,
);
