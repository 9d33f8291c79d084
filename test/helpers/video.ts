/**
 * Video test tools on the service's binaries (src/providers/media-binaries.ts: ffmpeg and ffprobe on PATH): make
 * clips from lavfi `testsrc` + `sine`, read stream properties with ffprobe, list the top-level MP4 atoms
 * (faststart = `moov` before `mdat`), and grab the last frame as a small grey raw image to compare frames
 * by mean absolute difference.
 */
import { execFile } from "node:child_process";
import { open } from "node:fs/promises";
import { promisify } from "node:util";
import { mediaBinaries } from "../../src/providers/media-binaries.ts";

const run = promisify(execFile);
export const binaries = mediaBinaries({});
const ffmpeg = binaries.ffmpeg!;
const ffprobe = binaries.ffprobe!;

/** Writes an MP4 test clip: testsrc video of `size` at `rate` fps and, unless `audio` is false, a sine tone. */
export async function makeClip(
  file: string,
  o: { seconds: number; size?: string; rate?: number; audio?: boolean; pattern?: "testsrc" | "smptebars" },
): Promise<void> {
  const args = [
    "-y",
    "-loglevel",
    "error",
    "-f",
    "lavfi",
    "-i",
    `${o.pattern ?? "testsrc"}=size=${o.size ?? "640x480"}:rate=${o.rate ?? 25}:duration=${o.seconds}`,
  ];
  if (o.audio !== false) args.push("-f", "lavfi", "-i", `sine=frequency=440:duration=${o.seconds}`);
  args.push("-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p");
  if (o.audio !== false) args.push("-c:a", "aac");
  args.push("-t", String(o.seconds), "-f", "mp4", file);
  await run(ffmpeg, args);
}

/** Writes a 1080x1920 PNG of a lavfi source (an "image"). */
export async function makeImage(file: string, source = "testsrc"): Promise<void> {
  await run(ffmpeg, [
    "-y",
    "-loglevel",
    "error",
    "-f",
    "lavfi",
    "-i",
    `${source}=size=1080x1920:rate=1:duration=1`,
    "-frames:v",
    "1",
    "-f",
    "image2",
    "-c:v",
    "png",
    file,
  ]);
}

export interface Probed {
  streams: Array<Record<string, any>>;
  format: Record<string, any>;
}

/** ffprobe's streams and format of `file`. */
export async function probe(file: string): Promise<Probed> {
  const { stdout } = await run(ffprobe, [
    "-v",
    "error",
    "-print_format",
    "json",
    "-show_streams",
    "-show_format",
    file,
  ]);
  return JSON.parse(stdout);
}

/** The top-level ISO-BMFF box types of `file`, in file order (read from the bytes). */
export async function topLevelAtoms(file: string): Promise<string[]> {
  const fh = await open(file, "r");
  try {
    const size = (await fh.stat()).size;
    const atoms: string[] = [];
    let at = 0;
    const head = Buffer.alloc(16);
    while (at + 8 <= size) {
      await fh.read(head, 0, 16, at);
      let len = head.readUInt32BE(0);
      const type = head.toString("latin1", 4, 8);
      if (len === 1) len = Number(head.readBigUInt64BE(8));
      else if (len === 0) len = size - at;
      if (len < 8) break;
      atoms.push(type);
      at += len;
    }
    return atoms;
  } finally {
    await fh.close();
  }
}

/** Fits a frame into 1080x1920 as the compositor does (scale down, pad black), then shrinks it. */
const FIT =
  "scale=1080:1920:force_original_aspect_ratio=decrease,pad=1080:1920:(ow-iw)/2:(oh-ih)/2:color=black";
const THUMB = { w: 36, h: 64 };

/** The last frame of `file` (fitted to 1080x1920), as 36x64 8-bit grey pixels. */
export async function lastFrame(file: string): Promise<Buffer> {
  const { stdout } = await run(
    ffmpeg,
    [
      "-loglevel",
      "error",
      "-sseof",
      "-0.5",
      "-i",
      file,
      "-vf",
      `${FIT},scale=${THUMB.w}:${THUMB.h},format=gray`,
      "-f",
      "rawvideo",
      "-",
    ],
    { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 },
  );
  const frame = THUMB.w * THUMB.h;
  if (stdout.length < frame) throw new Error("no frame decoded");
  return stdout.subarray(stdout.length - frame);
}

/** One frame at `seconds` of `file` through the filter `vf`, as raw pixels of `pixFmt`. */
async function grab(file: string, seconds: number, vf: string, pixFmt: string): Promise<Buffer> {
  const out = await run(
    ffmpeg,
    [
      "-loglevel",
      "error",
      "-ss",
      String(seconds),
      "-i",
      file,
      "-frames:v",
      "1",
      "-vf",
      vf,
      "-pix_fmt",
      pixFmt,
      "-f",
      "rawvideo",
      "-",
    ],
    { encoding: "buffer" },
  );
  return out.stdout;
}

/** The frame at `seconds` of `file`, as 36x64 8-bit grey pixels. */
export function frameAt(file: string, seconds: number): Promise<Buffer> {
  return grab(file, seconds, `${FIT},scale=${THUMB.w}:${THUMB.h},format=gray`, "gray");
}

/** Mean absolute difference of two equally sized grey images (0 = identical, 255 = opposite). */
export function meanAbsDiff(a: Buffer, b: Buffer): number {
  if (a.length !== b.length) throw new Error("frames differ in size");
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** Asserts-ready summary of the properties every template promises. */
export function summary(p: Probed) {
  const v = p.streams.find((s) => s.codec_type === "video");
  const a = p.streams.find((s) => s.codec_type === "audio");
  return {
    video: v
      ? {
          codec: v.codec_name,
          profile: v.profile,
          pix_fmt: v.pix_fmt,
          width: v.width,
          height: v.height,
          fps: v.avg_frame_rate,
        }
      : null,
    audio: a ? a.codec_name : null,
    duration: Number(p.format.duration),
  };
}

/** The frame at `seconds` of `file` scaled to 108x192, as 8-bit RGB pixels (row-major, 3 bytes a pixel). */
export function rgbFrameAt(file: string, seconds: number): Promise<Buffer> {
  return grab(file, seconds, "scale=108:192", "rgb24");
}

/**
 * The shares (0..1) of pixels of a 108x192 RGB frame inside the region [x0, x1) x [y0, y1) that are the
 * test product photo's magenta backdrop and its green square (test/fixtures/product-photo.ts).
 */
export function photoShares(frame: Buffer, x0: number, y0: number, x1: number, y1: number) {
  let magenta = 0;
  let green = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const i = (y * 108 + x) * 3;
      const [r, g, b] = [frame[i]!, frame[i + 1]!, frame[i + 2]!];
      if (r > 150 && g < 90 && b > 90) magenta += 1;
      else if (g > 150 && r < 110 && b < 110) green += 1;
    }
  const n = (x1 - x0) * (y1 - y0);
  return { magenta: magenta / n, green: green / n };
}
