/**
 * list_carousel_formats: the active carousel design systems with their formats, slide counts, layout, palette
 * and fonts (src/providers/render/designs.ts), the URL of a rendered sample slide (served by
 * src/web/previews.ts), and prices.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { listDesigns } from "../../domain/carousels/carousels.ts";
import { PRICES } from "../../domain/account/prices.ts";

export const handler: ToolHandlers["list_carousel_formats"] = {
  async execute(_input, ctx) {
    const designs = await listDesigns(ctx.db);
    return {
      data: {
        designs: designs.map((d) => ({
          ...d,
          preview_url: `${ctx.app.config.publicBaseUrl}/media/previews/${d.design_id}.jpg`,
        })),
        credit_prices: { generated_image: PRICES.generated_image, stored_cta_artwork: 0 },
      },
    };
  },
};
