/** get_schedule: one of the owner's schedules with its deliveries (service spec 3.1 rule 2). */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { getSchedule } from "../../domain/social/schedules.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["get_schedule"];

export const handler: ToolHandler<ToolInputs["get_schedule"], Output> = {
  async execute(input, ctx) {
    return { data: (await getSchedule(ctx.db, ownerOf(ctx.auth), input.schedule_id)) as Output };
  },
};
