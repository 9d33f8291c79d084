/**
 * Sample media for the network fakes' tests (test only), generated on demand, nothing binary committed:
 * JPEG and PNG slides by sharp, a 4-second H.264 MP4 by the service's ffmpeg (src/providers/media-binaries.ts).
 * Cached per process in a temp dir.
 */
import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { mediaBinaries } from "../../src/providers/media-binaries.ts";

const run = promisify(execFile);
const ffmpegPath = mediaBinaries({ ffmpegPath: process.env.FFMPEG_PATH }).ffmpeg ?? "ffmpeg";

export interface NetworkSamples {
  /** 1080x1350 JPEG (Instagram portrait). */
  jpg: string;
  /** 1080x1920 JPEG (9:16, the `story` format: refused in Instagram's feed). */
  storyJpg: string;
  /** 320x320 PNG (refused where JPEG is required). */
  png: string;
  /** 4-second 9:16 H.264 MP4 (yuv420p, faststart). */
  mp4: string;
}

let cached: Promise<NetworkSamples> | undefined;

/**
 * Generates (once) and returns the sample files. An async function, so that each caller awaits a promise of its
 * own: node:test finds a top-level test's file through the async context of that promise (test/host.ts).
 */
export async function networkSamples(): Promise<NetworkSamples> {
  cached ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-net-"));
    const out = {
      jpg: path.join(dir, "slide.jpg"),
      storyJpg: path.join(dir, "story.jpg"),
      png: path.join(dir, "slide.png"),
      mp4: path.join(dir, "clip.mp4"),
    };
    const solid = (w: number, h: number) =>
      sharp({ create: { width: w, height: h, channels: 3, background: { r: 30, g: 90, b: 200 } } });
    await solid(1080, 1350).jpeg({ quality: 80 }).toFile(out.jpg);
    await solid(1080, 1920).jpeg({ quality: 80 }).toFile(out.storyJpg);
    await solid(320, 320).png().toFile(out.png);
    await run(
      ffmpegPath,
      [
        "-hide_banner",
        "-loglevel",
        "error",
        "-y",
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=180x320:rate=10",
        "-t",
        "4",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-movflags",
        "+faststart",
        out.mp4,
      ],
      { timeout: 60_000 },
    );
    return out;
  })();
  return cached;
}
