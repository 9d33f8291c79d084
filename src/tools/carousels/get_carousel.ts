/**
 * get_carousel: generation progress (latest run) and every slide of an owned carousel post (spec 3.1 rule 2).
 * `wait_seconds` long-polls until the post's or the latest run's status changes (src/domain/long-poll.ts);
 * `next` names the following call: the same poll while the run is in progress, and schedule_post (one
 * approval for the carousel and the schedule) once a draft carousel is ready.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { changeKey } from "../../db/change-feed.ts";
import { getCarousel, type CarouselView } from "../../domain/carousels/read.ts";
import { MAX_WAIT_SECONDS, readWhenChanged } from "../../domain/long-poll.ts";
import { ownerOf } from "../../domain/owner.ts";
import { pick } from "../../db/rows.ts";
import type { NextStep } from "../../tool-contract.ts";

/** Post statuses of a carousel that still needs the user's approval before it goes out. */
const UNAPPROVED = new Set(["draft", "needs_review"]);

/** The follow-up of a read carousel (see the module comment); undefined when nothing follows. */
function followUp(c: CarouselView, waited: boolean): NextStep | undefined {
  const running = c.latest_run.status === "queued" || c.latest_run.status === "running";
  if (running)
    return {
      tool: "get_carousel",
      arguments: { post_id: c.post_id, wait_seconds: MAX_WAIT_SECONDS },
      after_seconds: waited ? 0 : 5,
    };
  if (c.latest_run.status !== "succeeded" || !UNAPPROVED.has(c.post_status)) return undefined;
  const destinations = c.destination_account_ids;
  return {
    tool: "schedule_post",
    arguments: {
      post_id: c.post_id,
      ...(destinations.length > 0 ? { social_account_ids: destinations } : {}),
    },
    after_seconds: 0,
    note: `The carousel is ready. Add scheduled_for (a future time with its UTC offset)${
      destinations.length > 0 ? "" : " and social_account_ids"
    } and a new idempotency_key, or call publish_post to publish now: one browser approval covers the carousel and its publication.`,
  };
}

export const handler: ToolHandlers["get_carousel"] = {
  async execute(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const wait = input.wait_seconds ?? 0;
    const { value: c } = await readWhenChanged<CarouselView>(ctx.app, ctx.auth.userId, wait, ctx.signal, {
      key: changeKey("carousel_post", input.post_id),
      read: () => getCarousel(ctx.db, owner, input.post_id),
      state: (v) => `${v.post_status}/${v.latest_run.run_id}/${v.latest_run.status}`,
      settled: (v) => v.latest_run.status !== "queued" && v.latest_run.status !== "running",
    });
    return {
      data: {
        post_id: c.post_id,
        status: c.post_status,
        caption: c.caption,
        caption_provider: c.caption_provider,
        run: pick(c.latest_run, ["run_id", "status", "kind", "credits_charged"]),
        slides: c.slides.map((s) =>
          pick(s, ["position", "status", "headline", "body", "image_asset_id", "provider"]),
        ),
      },
      next: followUp(c, wait > 0),
    };
  },
};
