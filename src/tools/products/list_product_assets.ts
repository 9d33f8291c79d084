/** list_product_assets: the stored media linked to an owned product (images, then CTA artwork). */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { listProductAssets } from "../../domain/products/products.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["list_product_assets"], ToolOutputs["list_product_assets"]> = {
  async execute(input, ctx) {
    return { data: { items: await listProductAssets(ctx.db, ownerOf(ctx.auth), input.product_id) } };
  },
};
