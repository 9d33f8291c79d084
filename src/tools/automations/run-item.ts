/** The catalog projection of an automation run (the provider result stays internal). */
import type { ToolOutputs } from "../../../generated/tool-types.ts";
import type { AutomationRunView } from "../../domain/automations/runs-read.ts";

export type RunItem = ToolOutputs["list_automation_runs"]["items"][number];

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

/** The rendered MP4 of a succeeded video run (get_automation_run `video`), from the run's stored result. */
export function runVideo(r: AutomationRunView): ToolOutputs["get_automation_run"]["video"] {
  const v =
    r.kind === "video" && r.status === "succeeded" ? (r.result?.video as Record<string, unknown>) : null;
  if (!v || typeof v.asset_id !== "string") return null;
  return {
    asset_id: v.asset_id,
    duration_seconds: Number(v.duration_seconds),
    bytes: Number(v.bytes),
    width: Number(v.width),
    height: Number(v.height),
    provider: typeof v.provider === "string" ? v.provider : null,
  };
}
