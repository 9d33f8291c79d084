/**
 * update_product: changes only the fields present in the arguments (`null` clears an optional field);
 * the fields are those of ProductFields, which the domain maps column by column, so no other column can be
 * reached (service spec 4.2 rule 6).
 * `cta_artwork_asset_id` sets (or with null removes) the product's stored CTA artwork, an owned image.
 * A new `product_url` is refused while it is the approved link of a pending Pin (src/domain/social/content.ts).
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import {
  getProduct,
  type ProductFields,
  setCtaArtwork,
  updateProduct,
} from "../../domain/products/products.ts";
import { ToolError } from "../../errors.ts";
import { assertLinkUnlocked } from "../../domain/social/content.ts";

export const handler: ToolHandlers["update_product"] = {
  async execute(input, ctx) {
    const { product_id, idempotency_key: _key, cta_artwork_asset_id: cta, ...given } = input;
    const fields: ProductFields = given;
    const changes = Object.values(fields).some((v) => v !== undefined);
    if (!changes && cta === undefined) {
      throw new ToolError("validation_failed", "give at least one field to change besides product_id");
    }
    const owner = ownerOf(ctx.auth);
    if (fields.product_url !== undefined) {
      const current = await getProduct(ctx.db, owner, product_id);
      // The URL is the approved link of a pending Pin: what was approved is what goes out.
      if (current.product_url !== fields.product_url)
        await assertLinkUnlocked(ctx.db, product_id, current.product_url);
    }
    if (cta !== undefined) await setCtaArtwork(ctx.db, owner, product_id, cta);
    return {
      data: changes
        ? await updateProduct(ctx.db, owner, product_id, fields)
        : await getProduct(ctx.db, owner, product_id),
    };
  },
};
