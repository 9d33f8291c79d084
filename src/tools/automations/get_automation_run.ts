/** get_automation_run: one owned run addressed by `kind` and `run_id` (service spec 2.7, 3.1 rule 2). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { getAutomationRun } from "../../domain/automations/runs-read.ts";
import { ownerOf } from "../../domain/owner.ts";
import { runItem, runVideo } from "./run-item.ts";

export const handler: ToolHandlers["get_automation_run"] = {
  async execute(input, ctx) {
    const run = await getAutomationRun(ctx.db, ownerOf(ctx.auth), input.kind, input.run_id);
    return { data: { ...runItem(run), video: runVideo(run) } };
  },
};
