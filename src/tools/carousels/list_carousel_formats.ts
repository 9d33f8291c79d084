/** list_carousel_formats: the active carousel design systems with their formats and slide counts, and prices. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { listDesigns } from "../../domain/carousels/carousels.ts";
import { PRICES } from "../../domain/account/prices.ts";

export const handler: ToolHandlers["list_carousel_formats"] = {
  async execute(_input, ctx) {
    const designs = await listDesigns(ctx.db);
    return {
      data: {
        designs: designs,
        credit_prices: { generated_image: PRICES.generated_image, stored_cta_artwork: 0 },
      },
    };
  },
};
