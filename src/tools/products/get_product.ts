/** get_product: one owned product; others' products are `not_found` (service spec 5.13). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { getProduct } from "../../domain/products/products.ts";

export const handler: ToolHandlers["get_product"] = {
  async execute(input, ctx) {
    return {
      data: await getProduct(ctx.db, ownerOf(ctx.auth), input.product_id),
    };
  },
};
