/**
 * Saves a generated image as an owned media asset (source `generated`) through the media storage interface
 * (src/providers/storage.ts, local disk under `config.media.dir` by default) and the media domain's
 * `createMediaAsset`, so the owner's media pages serve it like an upload. The asset id is the public handle;
 * the storage key stays internal.
 */
import { createHash } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { createMediaAsset } from "./media.ts";
import type { GeneratedImage } from "../../providers/ai-image/types.ts";

const EXT: Record<GeneratedImage["mimeType"], string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
};

/**
 * Writes `image` and records it for the owner. The bytes are stored before the record is inserted, so a
 * record never points at a missing file.
 * @returns the new media asset id.
 */
export async function storeGeneratedImage(
  app: AppContext,
  owner: { userId: string; workspaceId: string },
  image: GeneratedImage,
  meta: { title: string; labels: string[] },
): Promise<string> {
  const storage = app.providers.storage;
  const key = storage.newKey(EXT[image.mimeType]);
  await storage.putBytes(key, image.bytes);
  const asset = await createMediaAsset(app.db, owner, {
    kind: "image",
    mimeType: image.mimeType,
    bytes: image.bytes.length,
    width: image.width,
    height: image.height,
    labels: meta.labels,
    title: meta.title.slice(0, 200),
    storageKey: key,
    sha256: createHash("sha256").update(image.bytes).digest("hex"),
    source: "generated",
  });
  return asset.asset_id;
}
