/** The catalog projection of an automation run (the provider result stays internal). */
import type { ToolOutputs } from "../../../generated/tool-types.ts";
import type { AutomationRunView } from "../../domain/automations/runs-read.ts";

export type RunItem = ToolOutputs["get_automation_run"];

export function runItem(r: AutomationRunView): RunItem {
  return {
    run_id: r.run_id,
    automation_id: r.automation_id,
    kind: r.kind,
    status: r.status,
    trigger: r.trigger,
    credits_charged: r.credits_charged,
    post_id: r.post_id,
    created_at: r.created_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    error: r.error,
  };
}
