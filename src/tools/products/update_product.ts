/**
 * update_product: changes only the fields present in the arguments (`null` clears an optional field);
 * the fields are those of ProductFields, which the domain maps column by column, so no other column can be
 * reached (service spec 4.2 rule 6).
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { type ProductFields, updateProduct } from "../../domain/products/products.ts";
import { ToolError } from "../../errors.ts";

export const handler: ToolHandlers["update_product"] = {
  async execute(input, ctx) {
    const { product_id, idempotency_key: _key, ...given } = input;
    const fields: ProductFields = given;
    if (Object.values(fields).every((v) => v === undefined)) {
      throw new ToolError("validation_failed", "give at least one field to change besides product_id");
    }
    return { data: await updateProduct(ctx.db, ownerOf(ctx.auth), product_id, fields) };
  },
};
