/**
 * enable_automation (review): `describe` checks ownership at call time and names the automation; `execute`
 * (worker, after approval) sets its status to `enabled` after validating the definition again (the CTA video or
 * product may have gone since the draft was saved; ./status-handler.ts).
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { automationStatusHandler } from "./status-handler.ts";

export const handler: ToolHandlers["enable_automation"] = automationStatusHandler(
  "enabled",
  (name, kind) => `Enable the ${kind} automation “${name}” so it runs at its daily times.`,
);
