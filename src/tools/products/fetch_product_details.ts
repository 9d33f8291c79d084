/**
 * fetch_product_details (queued, service spec 4.2 rule 6): `accept` checks the URL's syntax and the
 * product's ownership inline and returns `{url, product_id}`; `execute` (worker) runs the guarded fetch,
 * extracts the details and, with a product, fills its empty fields. Refusals of the guard become
 * `validation_failed` with a stable `details.reason`; the page's text is returned as data only.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ToolError } from "../../errors.ts";
import { ownerOf } from "../../domain/owner.ts";
import { extractProductDetails } from "../../domain/products/extract.ts";
import { attachProductDetails, getProduct } from "../../domain/products/products.ts";
import { type FetchedPage, GuardedFetchError } from "../../providers/fetch/guarded-fetch.ts";
import { checkedProductUrl as parseUrl } from "./product-url.ts";

export const handler: ToolHandlers["fetch_product_details"] = {
  async accept(input, ctx) {
    const url = parseUrl(input.product_url, ctx);
    if (input.product_id !== undefined) await getProduct(ctx.db, ownerOf(ctx.auth), input.product_id);
    return { data: { url: url.toString(), product_id: input.product_id ?? null } };
  },
  async execute(input, ctx, accepted) {
    const owner = ownerOf(ctx.auth);
    const url = parseUrl(accepted?.url ?? input.product_url, ctx);
    const productId = accepted?.product_id ?? input.product_id ?? null;
    if (productId) await getProduct(ctx.db, owner, productId);
    let page: FetchedPage;
    try {
      page = await ctx.app.providers.fetch.html(url.toString(), { signal: ctx.signal });
    } catch (err) {
      if (err instanceof GuardedFetchError) {
        throw new ToolError("validation_failed", `the product page was refused: ${err.message}`, {
          reason: err.reason,
        });
      }
      throw err;
    }
    const details = extractProductDetails(page.html, page.url);
    if (productId) await attachProductDetails(ctx.db, owner, productId, details, url.toString());
    return {
      data: {
        url: url.toString(),
        final_url: page.url,
        product_id: productId,
        title: details.title ?? null,
        description: details.description ?? null,
        price: details.price ?? null,
        currency: details.currency ?? null,
        brand: details.brand ?? null,
        image_urls: details.image_urls,
        sources: details.sources,
      },
    };
  },
};
