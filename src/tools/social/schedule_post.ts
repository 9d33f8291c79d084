/**
 * schedule_post (review, service spec 2.7, 3.1): `describe` validates at call time (owned post, owned
 * non-TikTok destinations, explicit future `scheduled_for`); `execute` (worker, after approval) re-validates
 * and creates the schedule with one pending delivery per account. Inspect it with get_schedule.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { reviewUrl } from "../../domain/social/publish.ts";
import { prepareSchedule, schedulePost } from "../../domain/social/schedules.ts";
import { describePublication } from "./describe-publication.ts";

export const handler: ToolHandlers["schedule_post"] = {
  async describe(input, ctx) {
    const p = await prepareSchedule(ctx.db, ownerOf(ctx.auth), input, ctx.app.clock.now(), {
      reviewUrl: reviewUrl(ctx.app.config.publicBaseUrl),
    });
    return describePublication(p, p.at);
  },
  async execute(input, ctx) {
    const out = await schedulePost(ctx.app, ownerOf(ctx.auth), input, ctx.operationId);
    return { data: out };
  },
};
