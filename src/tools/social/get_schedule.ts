/** get_schedule: one of the owner's schedules with its deliveries (service spec 3.1 rule 2). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { getSchedule } from "../../domain/social/schedules.ts";

export const handler: ToolHandlers["get_schedule"] = {
  async execute(input, ctx) {
    return { data: await getSchedule(ctx.db, ownerOf(ctx.auth), input.schedule_id) };
  },
};
