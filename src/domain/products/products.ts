/**
 * Products (service spec 1.7 "Products", 2.7): owned by one user in one workspace; soft-deleted via
 * `deleted_at`. Product images are owned media assets linked through `product_assets`; image URLs found by
 * the guarded page analysis are kept as URLs only.
 */
import { isUuid } from "../../ids.ts";
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { keysetPage, pageSize } from "../cursor.ts";
import { requireOwnedAssets } from "../media/media.ts";
import { fromMinor, toMinor } from "./money.ts";
import { type Owner, ownedBy } from "../owner.ts";
import type { ProductDetails } from "./extract.ts";

/** The public projection of a product. `price` is in major units. */
export interface Product {
  product_id: string;
  name: string;
  description: string | null;
  price: number | null;
  currency: string | null;
  product_url: string | null;
  brand: string | null;
  tags: string[];
  image_asset_ids: string[];
  created_at: string;
  updated_at: string;
}

/** Fields a caller may set. Only these reach the database (no mass assignment). */
export interface ProductFields {
  name?: string;
  description?: string | null;
  price?: number | null;
  currency?: string | null;
  product_url?: string | null;
  brand?: string | null;
  tags?: string[];
  image_asset_ids?: string[];
}

const notFound = () => new ToolError("not_found", "product not found");

function owned(db: Knex, owner: Owner) {
  return db("products").where(ownedBy(owner)).whereNull("deleted_at");
}

async function assetIdsOf(db: Knex, productIds: string[]): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>();
  if (productIds.length === 0) return map;
  const rows = await db("product_assets as pa")
    .join("media_assets as m", "m.id", "pa.media_asset_id")
    .whereIn("pa.product_id", productIds)
    .where({ "pa.role": "image" })
    .whereNull("m.deleted_at")
    .orderBy([{ column: "pa.position" }, { column: "pa.created_at" }])
    .select("pa.product_id", "pa.media_asset_id");
  for (const r of rows) map.set(r.product_id, [...(map.get(r.product_id) ?? []), r.media_asset_id]);
  return map;
}

function toProduct(row: Record<string, any>, assetIds: string[]): Product {
  return {
    product_id: row.id,
    name: row.name,
    description: row.description ?? null,
    price:
      row.price_minor === null || row.currency === null
        ? null
        : fromMinor(Number(row.price_minor), row.currency),
    currency: row.currency ?? null,
    product_url: row.product_url ?? null,
    brand: row.brand ?? null,
    tags: Array.isArray(row.tags) ? row.tags : [],
    image_asset_ids: assetIds,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** The owner's product. @throws ToolError not_found (also for other members' and workspaces' products). */
export async function getProduct(db: Knex, owner: Owner, productId: string): Promise<Product> {
  if (!isUuid(productId)) throw notFound();
  const row = await owned(db, owner).where({ id: productId }).first();
  if (!row) throw notFound();
  return toProduct(row, (await assetIdsOf(db, [row.id])).get(row.id) ?? []);
}

/** Lists products newest first. @throws ToolError validation_failed for a bad limit/cursor. */
export async function listProducts(
  db: Knex,
  owner: Owner,
  opts: { limit?: number | undefined; cursor?: string | undefined; query?: string | undefined } = {},
): Promise<{ items: Product[]; next_cursor: string | null }> {
  const limit = pageSize(opts.limit);
  const q = owned(db, owner).select("*");
  const text = opts.query?.trim();
  if (text) {
    const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q.where((w) => {
      w.whereILike("name", like)
        .orWhereILike("brand", like)
        .orWhereRaw("exists (select 1 from jsonb_array_elements_text(tags) t where t ilike ?)", [like]);
    });
  }
  const page = await keysetPage<Record<string, any> & { id: string }>(db, q, { limit, cursor: opts.cursor });
  const assets = await assetIdsOf(
    db,
    page.rows.map((r) => r.id),
  );
  return {
    items: page.rows.map((r) => toProduct(r, assets.get(r.id) ?? [])),
    next_cursor: page.next_cursor,
  };
}

function columns(
  fields: ProductFields,
  existing?: { price_minor: number | null; currency: string | null },
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields.name !== undefined) {
    const name = fields.name.trim();
    if (!name) throw new ToolError("validation_failed", "name must not be empty");
    out.name = name;
  }
  if (fields.description !== undefined) out.description = fields.description;
  if (fields.product_url !== undefined) {
    if (fields.product_url !== null && !/^https?:\/\//i.test(fields.product_url)) {
      throw new ToolError("validation_failed", "product_url must be an http or https URL");
    }
    out.product_url = fields.product_url;
  }
  if (fields.brand !== undefined) out.brand = fields.brand;
  if (fields.tags !== undefined)
    out.tags = JSON.stringify([...new Set(fields.tags.map((t) => t.trim()).filter(Boolean))]);
  if (fields.price !== undefined || fields.currency !== undefined) {
    const currency = fields.currency !== undefined ? fields.currency : (existing?.currency ?? null);
    const oldPrice =
      existing?.price_minor !== null && existing?.price_minor !== undefined && existing.currency
        ? fromMinor(Number(existing.price_minor), existing.currency)
        : null;
    const price = fields.price !== undefined ? fields.price : oldPrice;
    if (price !== null && currency === null)
      throw new ToolError("validation_failed", "a price needs a currency");
    out.currency = currency;
    out.price_minor = price === null || currency === null ? null : toMinor(price, currency);
  }
  return out;
}

async function linkAssets(db: Knex, owner: Owner, productId: string, assetIds: string[]): Promise<void> {
  const ids = await requireOwnedAssets(db, owner, assetIds, "image", "image_asset_ids");
  await db("product_assets").where({ product_id: productId, role: "image" }).delete();
  if (ids.length > 0) {
    await db("product_assets")
      .insert(
        ids.map((id, position) => ({ product_id: productId, media_asset_id: id, role: "image", position })),
      )
      .onConflict(["product_id", "media_asset_id"])
      .merge(["role", "position"]);
  }
}

/**
 * Creates a product. `image_asset_ids` must be owned images.
 * @throws ToolError validation_failed (empty name, price without currency), not_found (foreign asset).
 */
export async function createProduct(
  db: Knex,
  owner: Owner,
  fields: ProductFields & { name: string },
): Promise<Product> {
  const [row] = await db("products")
    .insert({ ...columns(fields), user_id: owner.userId, workspace_id: owner.workspaceId })
    .returning("id");
  if (fields.image_asset_ids?.length) await linkAssets(db, owner, row.id, fields.image_asset_ids);
  return getProduct(db, owner, row.id);
}

/**
 * Changes only the given fields of an owned product (`null` clears an optional field).
 * @throws ToolError not_found, validation_failed.
 */
export async function updateProduct(
  db: Knex,
  owner: Owner,
  productId: string,
  fields: ProductFields,
): Promise<Product> {
  if (!isUuid(productId)) throw notFound();
  const existing = await owned(db, owner)
    .where({ id: productId })
    .forUpdate()
    .first("id", "price_minor", "currency");
  if (!existing) throw notFound();
  const changes = columns(fields, existing);
  if (Object.keys(changes).length > 0 || fields.image_asset_ids !== undefined) {
    await db("products")
      .where({ id: productId })
      .update({ ...changes, updated_at: db.fn.now() });
  }
  if (fields.image_asset_ids !== undefined) await linkAssets(db, owner, productId, fields.image_asset_ids);
  return getProduct(db, owner, productId);
}

/**
 * Sets (or with `null` removes) the owned product's stored CTA artwork: product asset role `cta_artwork`,
 * reused as the last carousel slide (service spec 1.7). The artwork must be a live image asset of the same
 * owner; any previous artwork is replaced.
 * @throws ToolError not_found (product), validation_failed (not an owned image, naming the field).
 */
export async function setCtaArtwork(
  db: Knex,
  owner: Owner,
  productId: string,
  assetId: string | null,
): Promise<void> {
  if (!isUuid(productId)) throw notFound();
  const product = await owned(db, owner).where({ id: productId }).forUpdate().first("id");
  if (!product) throw notFound();
  if (assetId !== null) {
    const asset = isUuid(assetId)
      ? await db("media_assets")
          .where(ownedBy(owner))
          .where({ id: assetId })
          .whereNull("deleted_at")
          .first("kind")
      : undefined;
    if (asset?.kind !== "image") {
      throw new ToolError(
        "validation_failed",
        "cta_artwork_asset_id must be an image asset of yours (upload one on the media page; list_media kind image)",
        [
          {
            keyword: "ownedImage",
            instancePath: "/cta_artwork_asset_id",
            schemaPath: "#/properties/cta_artwork_asset_id",
            params: { asset_id: assetId },
            message: asset ? "is not an image" : "is not one of your media assets",
          },
        ],
      );
    }
  }
  await db("product_assets").where({ product_id: productId, role: "cta_artwork" }).delete();
  if (assetId !== null) {
    await db("product_assets")
      .insert({ product_id: productId, media_asset_id: assetId, role: "cta_artwork", position: 0 })
      .onConflict(["product_id", "media_asset_id"])
      .merge(["role", "position"]);
  }
  await db("products").where({ id: productId }).update({ updated_at: db.fn.now() });
}

/**
 * Soft-deletes an owned product (idempotent: deleting a product this owner already deleted succeeds).
 * @returns whether this call deleted it. @throws ToolError not_found for a product the owner never had.
 */
export async function deleteProduct(
  db: Knex,
  owner: Owner,
  productId: string,
): Promise<{ product_id: string; deleted: boolean }> {
  if (!isUuid(productId)) throw notFound();
  const row = await db("products").where(ownedBy(owner)).where({ id: productId }).first("id", "deleted_at");
  if (!row) throw notFound();
  if (row.deleted_at) return { product_id: productId, deleted: false };
  await db("products")
    .where({ id: productId })
    .whereNull("deleted_at")
    .update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
  return { product_id: productId, deleted: true };
}

/** One stored asset of a product (list_product_assets). */
export interface ProductAsset {
  asset_id: string;
  kind: "image" | "video";
  mime_type: string;
  role: "image" | "cta_artwork";
  position: number;
}

/**
 * The owned media assets linked to a product: images in display order, then CTA artwork (at most 50).
 * @throws ToolError not_found.
 */
export async function listProductAssets(db: Knex, owner: Owner, productId: string): Promise<ProductAsset[]> {
  await getProduct(db, owner, productId);
  const rows = await db("product_assets as pa")
    .join("media_assets as m", "m.id", "pa.media_asset_id")
    .where({ "pa.product_id": productId, "m.user_id": owner.userId, "m.workspace_id": owner.workspaceId })
    .whereNull("m.deleted_at")
    .orderByRaw("case when pa.role = 'image' then 0 else 1 end, pa.position, pa.created_at")
    .limit(50)
    .select("m.id", "m.kind", "m.mime_type", "pa.role", "pa.position");
  return rows.map((r) => ({
    asset_id: r.id,
    kind: r.kind,
    mime_type: r.mime_type,
    role: r.role,
    position: r.position,
  }));
}

/**
 * Stores the result of a page analysis on an owned product: fills empty fields (never overwrites what the
 * user wrote), replaces the image URL list and records the time. @throws ToolError not_found.
 */
export async function attachProductDetails(
  db: Knex,
  owner: Owner,
  productId: string,
  details: ProductDetails,
  url: string,
): Promise<Product> {
  if (!isUuid(productId)) throw notFound();
  // A transaction (or a savepoint inside the caller's) so the row lock covers the read and the update.
  return db.transaction(async (trx) => {
    const row = await owned(trx, owner).where({ id: productId }).forUpdate().first();
    if (!row) throw notFound();
    const changes: Record<string, unknown> = {
      image_urls: JSON.stringify(details.image_urls),
      details_fetched_at: trx.fn.now(),
      updated_at: trx.fn.now(),
    };
    if (!row.description && details.description) changes.description = details.description;
    if (!row.brand && details.brand) changes.brand = details.brand;
    if (!row.product_url) changes.product_url = url;
    if (row.price_minor === null && details.price !== undefined && details.currency) {
      changes.price_minor = toMinor(details.price, details.currency);
      changes.currency = details.currency;
    }
    await trx("products").where({ id: productId }).update(changes);
    return getProduct(trx, owner, productId);
  });
}

/** A short label for approval pages: the product name. @throws ToolError not_found. */
export async function productLabel(db: Knex, owner: Owner, productId: string): Promise<string> {
  return (await getProduct(db, owner, productId)).name;
}
