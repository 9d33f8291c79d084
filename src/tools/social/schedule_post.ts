/**
 * schedule_post (review, service spec 2.7, 3.1): `describe` validates at call time (owned post, owned
 * non-TikTok destinations that do not have the post yet, explicit future `scheduled_for`) and records the
 * content the page shows; `execute` (worker, after approval) re-validates, checks the post is still what was
 * approved and creates the schedule with one pending delivery per account, bound to that content (the
 * engine checks it again when the time comes). Inspect it with get_schedule.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { approvedContentOf } from "../../domain/operations/store.ts";
import { ownerOf } from "../../domain/owner.ts";
import { reviewUrl } from "../../domain/social/publish.ts";
import { prepareSchedule, schedulePost } from "../../domain/social/schedules.ts";
import { describePublication } from "./describe-publication.ts";

export const handler: ToolHandlers["schedule_post"] = {
  async describe(input, ctx) {
    const p = await prepareSchedule(ctx.db, ownerOf(ctx.auth), input, ctx.app.clock.now(), {
      reviewUrl: reviewUrl(ctx.app.config.publicBaseUrl),
    });
    return describePublication(ctx.db, p, p.at);
  },
  async execute(input, ctx) {
    const approved = await approvedContentOf(ctx.app, ctx.operationId);
    const out = await schedulePost(ctx.app, ownerOf(ctx.auth), input, ctx.operationId, approved);
    return { data: out };
  },
};
