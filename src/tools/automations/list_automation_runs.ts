/** list_automation_runs: the owner's automation runs, newest first, by automation and kind. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { listAutomationRuns } from "../../domain/automations/runs-read.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";
import { runItem } from "./run-item.ts";

type Output = ToolOutputs["list_automation_runs"];

export const handler: ToolHandler<ToolInputs["list_automation_runs"], Output> = {
  async execute(input, ctx) {
    const page = await listAutomationRuns(ctx.db, ownerOf(ctx.auth), input);
    return { data: { items: page.items.map(runItem), next_cursor: page.next_cursor } };
  },
};
