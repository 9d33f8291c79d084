/**
 * list_carousel_formats: the active carousel design systems with their formats, slide counts, layout, palette
 * and fonts (src/providers/render/designs.ts), the URL of a rendered sample slide (served by
 * src/web/previews.ts), and prices.
 */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { listDesigns } from "../../domain/carousels/carousels.ts";
import { PRICES } from "../../domain/account/prices.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["list_carousel_formats"];

export const handler: ToolHandler<ToolInputs["list_carousel_formats"], Output> = {
  async execute(_input, ctx) {
    const designs = await listDesigns(ctx.db);
    return {
      data: {
        designs: designs.map((d) => ({
          ...d,
          preview_url: `${ctx.app.config.publicBaseUrl}/media/previews/${d.design_id}.jpg`,
        })) as Output["designs"],
        credit_prices: { generated_image: PRICES.generated_image, stored_cta_artwork: 0 },
      },
    };
  },
};
