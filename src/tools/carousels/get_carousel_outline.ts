/** get_carousel_outline: the saved slide plan of an owned carousel; reads only, starts no generation. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { getCarouselOutline } from "../../domain/carousels/read.ts";
import { ownerOf } from "../../domain/owner.ts";
import { pick } from "../../db/rows.ts";

export const handler: ToolHandlers["get_carousel_outline"] = {
  async execute(input, ctx) {
    const o = await getCarouselOutline(ctx.db, ownerOf(ctx.auth), input.post_id);
    return {
      data: {
        ...pick(o, ["post_id", "design_id", "slide_count"]),
        slides: o.slides.map((s) => pick(s, ["position", "headline", "body"])),
      },
    };
  },
};
