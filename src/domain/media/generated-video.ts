/**
 * Renders a video through the video provider (src/providers/video/) straight into the media storage's temp
 * area and saves it as an owned media asset (kind `video`, `video/mp4`, source `generated`) with the
 * duration, width and height ffprobe measured, like generated images (./generated-image.ts). The file is
 * moved into storage before the record is inserted, so a record never points at a missing file; a failed
 * render leaves no file behind. `meta.altText` is the video's description (./alt-text.ts
 * `generatedVideoDescription`), sent where a network takes one.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { AppContext } from "../../context.ts";
import { measureRender } from "../../observability/metrics.ts";
import type { VideoRequest, VideoResult } from "../../providers/video/types.ts";
import { createMediaAsset } from "./media.ts";

export interface StoredVideo extends VideoResult {
  /** The new media asset id. */
  asset_id: string;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Renders `request` (without `outputFile`, which this function provides) and records the MP4 for `owner`.
 * @throws VideoRenderError from the provider (nothing is stored then).
 */
export async function renderAndStoreVideo(
  app: AppContext,
  owner: { userId: string; workspaceId: string },
  request: Omit<VideoRequest, "outputFile">,
  meta: { title: string; labels: string[]; altText?: string | undefined },
  signal?: AbortSignal,
): Promise<StoredVideo> {
  const storage = app.providers.storage;
  const temp = await storage.tempPath();
  try {
    const { streams, ...video } = await measureRender(`video:${request.template}`, () =>
      app.providers.video.render({ ...request, outputFile: temp }, signal),
    );
    const sha256 = await sha256Of(temp);
    const key = storage.newKey("mp4");
    await storage.putFile(key, temp);
    const asset = await createMediaAsset(app.db, owner, {
      kind: "video",
      mimeType: "video/mp4",
      bytes: video.bytes,
      width: video.width,
      height: video.height,
      durationSeconds: video.duration_seconds,
      frameRate: streams?.frameRate ?? null,
      videoCodec: streams?.videoCodec ?? null,
      audioCodec: streams?.audioCodec ?? null,
      labels: meta.labels,
      title: meta.title.slice(0, 200),
      storageKey: key,
      sha256,
      source: "generated",
      altText: meta.altText,
    });
    return { asset_id: asset.asset_id, ...video };
  } finally {
    await rm(temp, { force: true });
  }
}
