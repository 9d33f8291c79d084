/**
 * delete_product (review, service spec 3.1): `describe` checks ownership at call time and names the
 * product on the approval page; `execute` runs in the worker after approval and soft-deletes it.
 * Idempotent: a product already deleted by its owner reports `deleted: true` again.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { deleteProduct, getProduct } from "../../domain/products/products.ts";

export const handler: ToolHandlers["delete_product"] = {
  async describe(input, ctx) {
    const product = await getProduct(ctx.db, ownerOf(ctx.auth), input.product_id);
    return {
      summary: `Delete the product “${product.name}”. Posts that reference it are kept.`,
      resources: [{ kind: "product", id: product.product_id, label: product.name }],
      destinations: [],
    };
  },
  async execute(input, ctx) {
    const result = await deleteProduct(ctx.db, ownerOf(ctx.auth), input.product_id);
    return { data: { product_id: result.product_id, deleted: true } };
  },
};
