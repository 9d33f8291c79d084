/** list_automations: the owner's automations in this workspace, newest first, by kind and status. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { listAutomations } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["list_automations"] = {
  async execute(input, ctx) {
    const page = await listAutomations(ctx.db, ownerOf(ctx.auth), input);
    return { data: page };
  },
};
