/** get_carousel: generation progress (latest run) and every slide of an owned carousel post (spec 3.1 rule 2). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { getCarousel } from "../../domain/carousels/read.ts";
import { ownerOf } from "../../domain/owner.ts";

export const handler: ToolHandlers["get_carousel"] = {
  async execute(input, ctx) {
    const c = await getCarousel(ctx.db, ownerOf(ctx.auth), input.post_id);
    return {
      data: {
        post_id: c.post_id,
        status: c.post_status,
        caption: c.caption,
        run: {
          run_id: c.latest_run.run_id,
          status: c.latest_run.status,
          kind: c.latest_run.kind,
          credits_charged: c.latest_run.credits_charged,
        },
        slides: c.slides.map((s) => ({
          position: s.position,
          status: s.status,
          headline: s.headline,
          body: s.body,
          image_asset_id: s.image_asset_id,
        })),
      },
    };
  },
};
