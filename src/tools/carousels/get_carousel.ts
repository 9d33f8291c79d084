/** get_carousel: generation progress (latest run) and every slide of an owned carousel post (spec 3.1 rule 2). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { getCarousel } from "../../domain/carousels/read.ts";
import { ownerOf } from "../../domain/owner.ts";
import { pick } from "../../db/rows.ts";

export const handler: ToolHandlers["get_carousel"] = {
  async execute(input, ctx) {
    const c = await getCarousel(ctx.db, ownerOf(ctx.auth), input.post_id);
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
    };
  },
};
