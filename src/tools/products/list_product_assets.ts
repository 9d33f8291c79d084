/** list_product_assets: the stored media linked to an owned product (images, then CTA artwork). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { listProductAssets } from "../../domain/products/products.ts";

export const handler: ToolHandlers["list_product_assets"] = {
  async execute(input, ctx) {
    return { data: { items: await listProductAssets(ctx.db, ownerOf(ctx.auth), input.product_id) } };
  },
};
