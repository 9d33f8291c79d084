/** list_automations: the owner's automations in this workspace, newest first, by kind and status. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { listAutomations } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["list_automations"];

export const handler: ToolHandler<ToolInputs["list_automations"], Output> = {
  async execute(input, ctx) {
    const page = await listAutomations(ctx.db, ownerOf(ctx.auth), input);
    return { data: page as unknown as Output };
  },
};
