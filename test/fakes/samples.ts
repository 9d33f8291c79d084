/**
 * Sample media for the network fakes' tests (test only), generated on demand, nothing binary committed, at
 * the specs of what the product makes and the networks take: JPEG slides at 1080x1350 and 1080x1920 and a PNG
 * with alpha by sharp; a 1080x1920 30 fps H.264/AAC MP4 of 4 s by the service's ffmpeg
 * (src/providers/media-binaries.ts); and, for refusals, a 180x320 10 fps clip (what Reels and TikTok refuse).
 * Cached per process in a temp dir.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
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
  /** 1080x1350 PNG with an alpha channel (a transparent band). */
  alphaPng: string;
  /** 4-second 1080x1920 (9:16) 30 fps H.264 (yuv420p, faststart) MP4 with AAC sound. */
  mp4: string;
  /** 4-second 180x320 10 fps H.264 MP4 without sound: under Reels' and TikTok's frame rate, TikTok's size. */
  lowFpsMp4: string;
}

let cached: Promise<NetworkSamples> | undefined;

/**
 * Generates (once) and returns the sample files. An async function, so that each caller awaits a promise of its
 * own: node:test finds a top-level test's file through the async context of that promise (test/host.ts).
 */
export async function networkSamples(): Promise<NetworkSamples> {
  // The temp dir is shared with other processes on the machine: files gone since are made again.
  if (cached) {
    const had = await cached.catch(() => undefined);
    if (!had || !Object.values(had).every((f) => existsSync(f))) cached = undefined;
  }
  cached ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-net-"));
    const out = {
      jpg: path.join(dir, "slide.jpg"),
      storyJpg: path.join(dir, "story.jpg"),
      png: path.join(dir, "slide.png"),
      alphaPng: path.join(dir, "alpha.png"),
      mp4: path.join(dir, "clip.mp4"),
      lowFpsMp4: path.join(dir, "low-fps.mp4"),
    };
    const solid = (w: number, h: number) =>
      sharp({ create: { width: w, height: h, channels: 3, background: { r: 30, g: 90, b: 200 } } });
    await solid(1080, 1350).jpeg({ quality: 80 }).toFile(out.jpg);
    await solid(1080, 1920).jpeg({ quality: 80 }).toFile(out.storyJpg);
    await solid(320, 320).png().toFile(out.png);
    const band = await sharp({
      create: { width: 1080, height: 400, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } },
    })
      .png()
      .toBuffer();
    await sharp({
      create: { width: 1080, height: 1350, channels: 4, background: { r: 30, g: 90, b: 200, alpha: 1 } },
    })
      .composite([{ input: band, top: 475, left: 0, blend: "dest-out" }])
      .png()
      .toFile(out.alphaPng);
    const ff = (args: string[]) =>
      run(ffmpegPath, ["-hide_banner", "-loglevel", "error", "-y", ...args], { timeout: 60_000 });
    // A frame counter on a solid colour: every frame differs, and the encode stays cheap (about 1 CPU-second).
    await ff([
      "-f",
      "lavfi",
      "-i",
      "color=c=0x1e5ac8:s=1080x1920:r=30,drawtext=text='%{n}':fontsize=160:x=120:y=860:fontcolor=white",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:sample_rate=48000",
      "-t",
      "4",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-b:a",
      "64k",
      "-shortest",
      "-movflags",
      "+faststart",
      out.mp4,
    ]);
    await ff([
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
      out.lowFpsMp4,
    ]);
    return out;
  })();
  return cached;
}
