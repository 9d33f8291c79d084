/**
 * schedule_posts (review, DESIGN.md section 4 "a week in one approval"): 1 to 14 items, each a post, a future
 * `scheduled_for` and owned non-TikTok destinations. `describe` checks every item at call time as
 * schedule_post does (a refusal names the item) and records one description whose `items` are each item's
 * own (post, slides, caption, destinations, time and the content its approval binds); the owner decides once
 * for all. `execute` (worker, after approval) creates every schedule in one transaction, each checked against
 * its own approved content, so either all are scheduled or none (src/domain/social/schedules.ts
 * schedulePosts).
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { approvedItemsOf } from "../../domain/operations/store.ts";
import { ownerOf } from "../../domain/owner.ts";
import { reviewUrl } from "../../domain/social/publish.ts";
import { forItem, prepareSchedule, schedulePosts } from "../../domain/social/schedules.ts";
import type { ApprovalDescription } from "../../tool-contract.ts";
import { describePublication, utcWords } from "./describe-publication.ts";

export const handler: ToolHandlers["schedule_posts"] = {
  async describe(input, ctx) {
    const now = ctx.app.clock.now();
    const items: ApprovalDescription[] = [];
    for (const [i, item] of input.items.entries())
      items.push(
        await forItem(i, async () => {
          const p = await prepareSchedule(ctx.db, ownerOf(ctx.auth), item, now, {
            reviewUrl: reviewUrl(ctx.app.config.publicBaseUrl),
          });
          return describePublication(ctx.db, p, p.at);
        }),
      );
    const times = items
      .map((d) => d.when ?? "")
      .sort()
      .map((w) => (w ? utcWords(new Date(w)) : w));
    const n = items.length;
    const short = (label: string) => (label.length > 40 ? `${label.slice(0, 39).trimEnd()}…` : label);
    const labels = [...new Set(items.flatMap((d) => d.resources.map((r) => `“${short(r.label)}”`)))];
    const where = [...new Set(items.flatMap((d) => d.destinations.map((a) => `${a.name} (${a.network})`)))];
    return {
      summary: `Schedule ${n} post${n === 1 ? "" : "s"} (${labels.join(", ")}) between ${times[0]} and ${times[n - 1]} to ${where.join(", ")}.`,
      resources: items.flatMap((d) => d.resources),
      destinations: [],
      versions: items.flatMap((d) => d.versions ?? []),
      credits: 0,
      items,
    };
  },
  async execute(input, ctx) {
    const approved = await approvedItemsOf(ctx.app, ctx.operationId);
    const schedules = await schedulePosts(ctx.app, ownerOf(ctx.auth), input.items, ctx.operationId, approved);
    return { data: { schedules } };
  },
};
