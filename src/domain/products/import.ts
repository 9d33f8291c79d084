/**
 * A product made from its public page (create_product with only `product_url`; DESIGN.md section 4 "product
 * from a URL in one call"; service spec 4.2 rule 6). The worker reads the page through the guarded fetch
 * (src/providers/fetch/guarded-fetch.ts), takes name, description, price, currency and brand from it
 * (./extract.ts: JSON-LD, Open Graph, meta), and stores the images the page's own structured data names
 * (JSON-LD and Open Graph only) as the product's images, each fetched through the same guard and held to the
 * upload rules: its type sniffed from its bytes (JPEG, PNG or WEBP), its size within `config.media.maxImageBytes`
 * and MEDIA_LIMITS, the workspace's storage quota. No image URL ever comes from the agent. An image that breaks
 * a rule is left out and named in the result; a page that names no product is refused.
 */
import { createHash } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { ToolError } from "../../errors.ts";
import { GuardedFetchError } from "../../providers/fetch/guarded-fetch.ts";
import { imageLimitProblem } from "../../providers/media-limits.ts";
import { ACCEPTED, imageDimensionsOf, sniffType } from "../../providers/media-probe.ts";
import { createMediaAsset } from "../media/media.ts";
import { assertStorageRoom, StorageQuotaError } from "../media/storage-quota.ts";
import type { Owner } from "../owner.ts";
import { extractProductDetails } from "./extract.ts";
import { createProduct, type Product } from "./products.ts";

/** Images of a page stored at most (the product's first images, in the page's order). */
export const MAX_IMPORTED_IMAGES = 4;

/** An image of the page that was left out, and why (a sentence without the image's content). */
export interface RefusedImage {
  url: string;
  reason: string;
}

/** What the import made: the product, and what it read. */
export interface ImportedProduct {
  product: Product;
  page: {
    url: string;
    final_url: string;
    sources: Array<"json_ld" | "open_graph" | "meta">;
    images_refused: RefusedImage[];
  };
}

/** A refusal of the guarded fetch as the tool's error: `validation_failed` with its stable reason. */
function pageRefused(err: GuardedFetchError): ToolError {
  return new ToolError("validation_failed", `the product page was refused: ${err.message}`, {
    reason: err.reason,
  });
}

/** One image of the page, fetched and checked; its bytes and what the asset records. */
async function fetchImage(
  app: AppContext,
  url: string,
  signal: AbortSignal,
): Promise<{ bytes: Buffer; mime: keyof typeof ACCEPTED; width: number; height: number } | RefusedImage> {
  try {
    const got = await app.providers.fetch.image(url, { signal });
    const mime = await sniffType(got.body.subarray(0, 4100));
    if (!mime || ACCEPTED[mime].kind !== "image")
      return { url, reason: "its bytes are not a JPEG, PNG or WEBP image" };
    const { width, height } = imageDimensionsOf(got.body);
    const problem = imageLimitProblem(width, height);
    if (problem) return { url, reason: problem };
    return { bytes: got.body, mime, width, height };
  } catch (err) {
    if (err instanceof GuardedFetchError) return { url, reason: err.message };
    if (signal.aborted) throw err;
    return { url, reason: "the image could not be read" };
  }
}

/**
 * Reads `url` and creates the owner's product from it (see the module comment).
 * @throws ToolError validation_failed when the page is refused by the guard (`details.reason`), or names no
 *   product (no title); the signal's reason when aborted.
 */
export async function importProduct(
  app: AppContext,
  owner: Owner,
  url: string,
  signal: AbortSignal,
): Promise<ImportedProduct> {
  let page: Awaited<ReturnType<AppContext["providers"]["fetch"]["html"]>>;
  try {
    page = await app.providers.fetch.html(url, { signal });
  } catch (err) {
    if (err instanceof GuardedFetchError) throw pageRefused(err);
    throw err;
  }
  const details = extractProductDetails(page.html, page.url);
  if (!details.title)
    throw new ToolError(
      "validation_failed",
      "the page names no product: it has no title in JSON-LD, Open Graph or meta tags; call create_product with a name instead",
      { reason: "no_product" },
    );
  const refused: RefusedImage[] = [];
  const stored: Array<{ storageKey: string; bytes: Buffer; mime: string; width: number; height: number }> =
    [];
  for (const imageUrl of details.image_urls) {
    if (stored.length >= MAX_IMPORTED_IMAGES) break;
    const image = await fetchImage(app, imageUrl, signal);
    if ("reason" in image) {
      refused.push(image);
      continue;
    }
    const storageKey = app.providers.storage.newKey(ACCEPTED[image.mime].ext);
    await app.providers.storage.putBytes(storageKey, image.bytes);
    stored.push({ storageKey, ...image });
  }
  const product = await app.db.transaction(async (trx) => {
    const ids: string[] = [];
    for (const s of stored) {
      try {
        await assertStorageRoom(trx, owner.workspaceId, s.bytes.length, app.config.media.storageQuotaBytes);
      } catch (err) {
        if (!(err instanceof StorageQuotaError)) throw err;
        refused.push({ url: "", reason: err.message });
        break;
      }
      const asset = await createMediaAsset(trx, owner, {
        kind: "image",
        mimeType: s.mime,
        bytes: s.bytes.length,
        width: s.width,
        height: s.height,
        title: details.title!.slice(0, 200),
        labels: ["product"],
        storageKey: s.storageKey,
        sha256: createHash("sha256").update(s.bytes).digest("hex"),
        source: "upload",
      });
      ids.push(asset.asset_id);
    }
    return createProduct(trx, owner, {
      name: details.title!.slice(0, 200),
      ...(details.description !== undefined ? { description: details.description } : {}),
      ...(details.price !== undefined && details.currency !== undefined
        ? { price: details.price, currency: details.currency }
        : {}),
      ...(details.brand !== undefined ? { brand: details.brand } : {}),
      product_url: url,
      ...(ids.length > 0 ? { image_asset_ids: ids } : {}),
    });
  });
  return {
    product,
    page: { url, final_url: page.url, sources: details.sources, images_refused: refused },
  };
}
