/** get_carousel_outline: the saved slide plan of an owned carousel; reads only, starts no generation. */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { getCarouselOutline } from "../../domain/carousels/read.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["get_carousel_outline"];

export const handler: ToolHandler<ToolInputs["get_carousel_outline"], Output> = {
  async execute(input, ctx) {
    const o = await getCarouselOutline(ctx.db, ownerOf(ctx.auth), input.post_id);
    return {
      data: {
        post_id: o.post_id,
        design_id: o.design_id,
        slide_count: o.slide_count as Output["slide_count"],
        slides: o.slides.map((s) => ({ position: s.position, headline: s.headline, body: s.body })),
      },
    };
  },
};
