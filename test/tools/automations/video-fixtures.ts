/** A real stored CTA video for automation tests: an MP4 made with the bundled ffmpeg, in the app's storage. */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";
import { createMediaAsset } from "../../../src/domain/media/media.ts";
import { probeVideo } from "../../../src/providers/media-probe.ts";
import type { TestApp } from "../../helpers/app.ts";
import { binaries, makeClip } from "../../helpers/video.ts";
import type { Who } from "../carousels/fixtures.ts";

/**
 * Makes a `seconds`-long testsrc clip (`audio`: with a sine tone), stores it through the app's media storage
 * and records it as `who`'s video asset (duration and size from ffprobe). Returns the asset id and a copy of the file.
 */
export async function storedCta(
  app: TestApp,
  who: Who,
  seconds: number,
  o: { audio?: boolean; size?: string } = {},
): Promise<{ assetId: string; file: string }> {
  const storage = app.ctx.providers.storage;
  const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-cta-"));
  after(() => rm(dir, { recursive: true, force: true }));
  const temp = path.join(dir, "cta.mp4");
  await makeClip(temp, { seconds, size: o.size ?? "720x1280", audio: o.audio ?? true, pattern: "smptebars" });
  const info = await probeVideo(temp, { ffprobePath: binaries.ffprobe });
  const bytes = await readFile(temp);
  const key = storage.newKey("mp4");
  await storage.putBytes(key, bytes);
  const asset = await createMediaAsset(
    app.ctx.db,
    { userId: who.user_id, workspaceId: who.workspace_id },
    {
      kind: "video",
      mimeType: "video/mp4",
      bytes: bytes.length,
      width: info.width,
      height: info.height,
      durationSeconds: info.durationSeconds,
      storageKey: key,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      title: "CTA clip",
    },
  );
  return { assetId: asset.asset_id, file: temp };
}

/** Copies a stored media asset's file to a temp path (for ffprobe) and returns the path and its record. */
export async function assetFile(app: TestApp, assetId: string) {
  const row = await app.ctx.db("media_assets").where({ id: assetId }).first();
  const { stream } = await app.ctx.providers.storage.read(row.storage_key);
  const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-asset-"));
  after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, "asset.mp4");
  await pipeline(stream, createWriteStream(file));
  return { file, row };
}
