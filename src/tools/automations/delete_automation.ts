/**
 * delete_automation (review): `describe` checks ownership at call time and names the automation; `execute`
 * (worker, after approval) deletes it, freeing its slot. Its runs and generated posts are kept.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { deleteAutomation } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import { describeAutomation } from "./describe-automation.ts";

export const handler: ToolHandlers["delete_automation"] = {
  async describe(input, ctx) {
    return describeAutomation(
      ctx,
      input.automation_id,
      (name, kind) => `Delete the ${kind} automation “${name}”. Its past runs and posts are kept.`,
    );
  },
  async execute(input, ctx) {
    const out = await deleteAutomation(ctx.db, ownerOf(ctx.auth), input.automation_id, ctx.app.clock.now());
    return { data: { automation_id: out.automation_id, deleted: true } };
  },
};
