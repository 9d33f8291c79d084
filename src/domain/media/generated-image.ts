/**
 * Saves a generated image as an owned media asset (source `generated`) through the media storage interface
 * (src/providers/storage.ts, local disk under `config.media.dir` by default) and the media domain's
 * `createMediaAsset`, so the owner's media pages serve it like an upload. The asset id is the public handle;
 * the storage key stays internal.
 */
import { createHash } from "node:crypto";
import type { Knex } from "knex";
import type { AppContext } from "../../context.ts";
import { createMediaAsset } from "./media.ts";
import type { GeneratedImage } from "../../providers/ai-image/types.ts";

const EXT: Record<GeneratedImage["mimeType"], string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
};

/** A generated image written to media storage but not yet recorded (see `recordGeneratedImage`). */
export interface PutImage {
  image: GeneratedImage;
  /** The internal storage key the bytes were written under. */
  storageKey: string;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

/** Writes `image`'s bytes to media storage under a new key; nothing is recorded yet. */
export async function putGeneratedImage(app: AppContext, image: GeneratedImage): Promise<PutImage> {
  const storage = app.providers.storage;
  const storageKey = storage.newKey(EXT[image.mimeType]);
  await storage.putBytes(storageKey, image.bytes);
  return { image, storageKey, sha256: createHash("sha256").update(image.bytes).digest("hex") };
}

/**
 * Records a written image for the owner through `db`: pass the transaction that also saves what points at
 * the asset (a carousel slide's checkpoint), so a process killed in between leaves no asset behind that
 * nothing uses.
 * @returns the new media asset id.
 */
export async function recordGeneratedImage(
  db: Knex,
  owner: { userId: string; workspaceId: string },
  put: PutImage,
  meta: { title: string; labels: string[]; altText?: string | undefined },
): Promise<string> {
  const { image } = put;
  const asset = await createMediaAsset(db, owner, {
    kind: "image",
    mimeType: image.mimeType,
    bytes: image.bytes.length,
    width: image.width,
    height: image.height,
    labels: meta.labels,
    title: meta.title.slice(0, 200),
    altText: meta.altText,
    storageKey: put.storageKey,
    sha256: put.sha256,
    source: "generated",
  });
  return asset.asset_id;
}

/**
 * Writes `image` and records it for the owner. The bytes are stored before the record is inserted, so a
 * record never points at a missing file.
 * @returns the new media asset id.
 */
export async function storeGeneratedImage(
  app: AppContext,
  owner: { userId: string; workspaceId: string },
  image: GeneratedImage,
  meta: { title: string; labels: string[]; altText?: string | undefined },
): Promise<string> {
  return recordGeneratedImage(app.db, owner, await putGeneratedImage(app, image), meta);
}
