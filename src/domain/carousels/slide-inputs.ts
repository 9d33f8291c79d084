/**
 * What a carousel slide is rendered from (service spec 1.7): the stored bytes of the product photo (the
 * product's first image asset: saved by fetch_product_details or uploaded), of the stored CTA artwork and of
 * a slide's kept visual, the copy request built from the product's facts and the run's brief, and the CTA
 * link text. Bytes are read through the media storage interface (ctx.providers.storage).
 */
import type { AppContext } from "../../context.ts";
import type { CarouselCopyRequest, TextSubject } from "../../providers/ai-text/types.ts";
import { type Owner, ownedBy } from "../owner.ts";

/** All bytes stored under `key`. @throws the storage's error when missing. */
export async function readStored(app: AppContext, key: string): Promise<Buffer> {
  const { stream } = await app.providers.storage.read(key);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** The bytes of the owner's live image asset `assetId`, or undefined. */
export async function ownedImageBytes(
  app: AppContext,
  owner: Owner,
  assetId: string,
): Promise<Buffer | undefined> {
  const row = await app
    .db("media_assets")
    .where(ownedBy(owner))
    .where({ id: assetId, kind: "image" })
    .whereNull("deleted_at")
    .first("storage_key");
  return row ? readStored(app, row.storage_key) : undefined;
}

/** The product's first live image asset's bytes, or undefined when it has none. */
export async function productPhoto(
  app: AppContext,
  owner: Owner,
  productId: string,
): Promise<Buffer | undefined> {
  return (await productPhotos(app, owner, productId, 1))[0];
}

/**
 * The bytes of the product's first `limit` live image assets, in the product's order (position, then
 * creation); a file missing from storage is skipped. Empty when the product has none or `productId` is not
 * a string.
 */
export async function productPhotos(
  app: AppContext,
  owner: Owner,
  productId: unknown,
  limit: number,
): Promise<Buffer[]> {
  if (typeof productId !== "string") return [];
  const rows: Array<{ storage_key: string }> = await app
    .db("product_assets as pa")
    .join("media_assets as m", "m.id", "pa.media_asset_id")
    .where({ "pa.product_id": productId, "pa.role": "image", "m.kind": "image" })
    .where(ownedBy(owner, "m"))
    .whereNull("m.deleted_at")
    .orderBy([{ column: "pa.position" }, { column: "pa.created_at" }])
    .limit(limit)
    .select("m.storage_key");
  const photos: Buffer[] = [];
  for (const row of rows) {
    try {
      photos.push(await readStored(app, row.storage_key));
    } catch {
      // a missing file: the layout falls back to the slide's visual, a video to a generated image
    }
  }
  return photos;
}

/** The product's facts as the text provider's subject, with `brief` (untrusted data). */
export function productSubject(product: Record<string, any>, brief: string | undefined): TextSubject {
  return {
    kind: "product",
    name: String(product.name),
    description: product.description ?? undefined,
    brand: product.brand ?? undefined,
    price:
      product.price_minor === null || product.price_minor === undefined
        ? undefined
        : product.price_minor / 100,
    currency: product.currency ?? undefined,
    tags: Array.isArray(product.tags) ? product.tags.map(String) : undefined,
    brief,
  };
}

/** The copy request of a carousel whose outline is `outline`. */
export function copyRequest(
  product: Record<string, any>,
  outline: { slides: Array<{ position: number; role: string }> },
  brief: string | undefined,
  variant: number,
): CarouselCopyRequest {
  return {
    subject: productSubject(product, brief),
    productUrl: product.product_url ?? undefined,
    slides: outline.slides.map((s) => ({ position: s.position, role: s.role })),
    variant,
  };
}

/** The CTA button text: "Shop at {host}" from the product URL, else "Shop {name}". */
export function linkText(product: Record<string, any>): string {
  try {
    if (product.product_url) return `Shop at ${new URL(product.product_url).host.replace(/^www\./, "")}`;
  } catch {
    // not a URL: fall through
  }
  return `Shop ${String(product.name).slice(0, 30)}`;
}
