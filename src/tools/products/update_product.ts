/**
 * update_product: changes only the fields present in the arguments (`null` clears an optional field);
 * the field list is explicit, so no other column can be reached (service spec 4.2 rule 6).
 * `cta_artwork_asset_id` sets (or with null removes) the product's stored CTA artwork, an owned image.
 */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ToolError } from "../../errors.ts";
import { ownerOf } from "../../domain/owner.ts";
import {
  getProduct,
  type ProductFields,
  setCtaArtwork,
  updateProduct,
} from "../../domain/products/products.ts";
import type { ToolHandler } from "../../tool-contract.ts";

const FIELDS = [
  "name",
  "description",
  "price",
  "currency",
  "product_url",
  "brand",
  "tags",
  "image_asset_ids",
] as const;

export const handler: ToolHandler<ToolInputs["update_product"], ToolOutputs["update_product"]> = {
  async execute(input, ctx) {
    const fields: Record<string, unknown> = {};
    for (const f of FIELDS) if (Object.hasOwn(input, f) && input[f] !== undefined) fields[f] = input[f];
    const cta = input.cta_artwork_asset_id;
    if (Object.keys(fields).length === 0 && cta === undefined) {
      throw new ToolError("validation_failed", "give at least one field to change besides product_id");
    }
    const owner = ownerOf(ctx.auth);
    if (cta !== undefined) await setCtaArtwork(ctx.db, owner, input.product_id, cta);
    const product =
      Object.keys(fields).length > 0
        ? await updateProduct(ctx.db, owner, input.product_id, fields as ProductFields)
        : await getProduct(ctx.db, owner, input.product_id);
    return { data: product as ToolOutputs["update_product"] };
  },
};
