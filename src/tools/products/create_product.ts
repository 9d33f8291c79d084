/**
 * create_product (inline, deferrable: DESIGN.md section 4 "product from a URL in one call"; service spec 4.6
 * "queued_handler=false does not imply a finished output"). With `name`, the call saves the product from the
 * listed fields only (no mass assignment; image ids must be the caller's own image assets, `not_found`
 * otherwise) and answers `succeeded` with it. With only `product_url`, the call checks the URL's syntax and
 * hands the work to the worker (`queue: true`: the call answers `queued` with an operation); the worker's
 * `execute` (with the accepted data) reads the page through the guarded fetch and creates the product from
 * it, with the images the page's structured data names (src/domain/products/import.ts);
 * `get_job_status` gives `{product, page}`.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { importProduct } from "../../domain/products/import.ts";
import { createProduct } from "../../domain/products/products.ts";
import { checkedProductUrl } from "./product-url.ts";

export const handler: ToolHandlers["create_product"] = {
  async execute(input, ctx, accepted) {
    if (accepted !== undefined || input.name === undefined) {
      const url = checkedProductUrl(input.product_url ?? "", ctx);
      // At the call: hand the page's reading to the worker. In the worker: read it.
      if (accepted === undefined) return { data: { product_url: url.toString() }, queue: true };
      return { data: await importProduct(ctx.app, ownerOf(ctx.auth), url.toString(), ctx.signal) };
    }
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
