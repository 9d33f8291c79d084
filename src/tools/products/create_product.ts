/**
 * create_product: saves a product from the listed fields only (no mass assignment); image ids must be the
 * caller's own image assets (`not_found` otherwise).
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { createProduct } from "../../domain/products/products.ts";

export const handler: ToolHandlers["create_product"] = {
  async execute(input, ctx) {
    const product = await createProduct(ctx.db, ownerOf(ctx.auth), {
      name: input.name,
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.price !== undefined ? { price: input.price } : {}),
      ...(input.currency !== undefined ? { currency: input.currency } : {}),
      ...(input.product_url !== undefined ? { product_url: input.product_url } : {}),
      ...(input.brand !== undefined ? { brand: input.brand } : {}),
      ...(input.tags !== undefined ? { tags: input.tags } : {}),
      ...(input.image_asset_ids !== undefined ? { image_asset_ids: input.image_asset_ids } : {}),
    });
    return { data: product };
  },
};
