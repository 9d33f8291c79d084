/** list_automation_runs: the owner's automation runs, newest first, by automation and kind. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { listAutomationRuns } from "../../domain/automations/runs-read.ts";
import { ownerOf } from "../../domain/owner.ts";
import { runItem } from "./run-item.ts";

export const handler: ToolHandlers["list_automation_runs"] = {
  async execute(input, ctx) {
    const page = await listAutomationRuns(ctx.db, ownerOf(ctx.auth), input);
    return { data: { items: page.items.map(runItem), next_cursor: page.next_cursor } };
  },
};
