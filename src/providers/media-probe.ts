/**
 * Media inspection: the type is sniffed from the content with file-type (never from the name);
 * only JPEG, PNG, WEBP images and MP4 videos are accepted. Image dimensions come from image-size; video
 * duration and dimensions from ffprobe (on PATH or config `media.ffprobePath`, src/providers/media-binaries.ts;
 * spawned with an argument array, no shell, with a timeout and the memory bounds of `boundedCommand`).
 */
import { spawn } from "node:child_process";
import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";
import { imageSizeFromFile } from "image-size/fromFile";
import {
  boundedCommand,
  DEFAULT_MAX_MEMORY_BYTES,
  INSTALL_HINT,
  MAX_ALLOC_BYTES,
  mediaBinaries,
} from "./media-binaries.ts";

export type AcceptedMime = "image/jpeg" | "image/png" | "image/webp" | "video/mp4";

export const ACCEPTED: Record<AcceptedMime, { kind: "image" | "video"; ext: string }> = {
  "image/jpeg": { kind: "image", ext: "jpg" },
  "image/png": { kind: "image", ext: "png" },
  "image/webp": { kind: "image", ext: "webp" },
  "video/mp4": { kind: "video", ext: "mp4" },
};

/** Bytes file-type needs to recognise every accepted format. */
export const SNIFF_BYTES = 4100;

/** The accepted type of a file's first bytes, or undefined (unknown or not allowed). */
export async function sniffType(head: Uint8Array): Promise<AcceptedMime | undefined> {
  const type = await fileTypeFromBuffer(head);
  if (!type) return undefined;
  // ISO-BMFF variants recognised as MP4 family by file-type: accept only real MP4 brands.
  const mime =
    type.mime === "video/mp4" || (type.ext === "mp4" && type.mime.startsWith("video/"))
      ? "video/mp4"
      : type.mime;
  return Object.hasOwn(ACCEPTED, mime) ? (mime as AcceptedMime) : undefined;
}

/** Width and height in pixels of an image file. @throws when the image cannot be read. */
export async function imageDimensions(file: string): Promise<{ width: number; height: number }> {
  return oriented(await imageSizeFromFile(file));
}

/** Width and height in pixels of an image in memory. @throws when the image cannot be read. */
export function imageDimensionsOf(bytes: Uint8Array): { width: number; height: number } {
  return oriented(imageSize(bytes));
}

/** The displayed size: width and height swapped for an EXIF orientation of 5 to 8 (a quarter turn). */
function oriented(size: { width?: number; height?: number; orientation?: number }): {
  width: number;
  height: number;
} {
  if (!size.width || !size.height) throw new Error("image has no dimensions");
  const rotated = size.orientation !== undefined && size.orientation >= 5;
  return rotated ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
}

export interface VideoInfo {
  durationSeconds: number;
  width: number | null;
  height: number | null;
  /** True when the file has an audio stream. */
  hasAudio: boolean;
  /** Frames per second of the video stream (its average), null when ffprobe gives none. */
  frameRate: number | null;
  /** ffprobe's `codec_name` of the video stream (`h264`, `hevc`, `vp9`), null without one. */
  videoCodec: string | null;
  /** ffprobe's `codec_name` of the audio stream (`aac`, `opus`), null without one. */
  audioCodec: string | null;
}

/** ffprobe is not installed or configured (the message says how to fix it). */
export class FfprobeMissingError extends Error {
  override name = "FfprobeMissingError";
  constructor() {
    super(`ffprobe is not installed on this server: ${INSTALL_HINT}`);
  }
}

/** ffprobe's `avg_frame_rate` (`30/1`, `30000/1001`) in frames per second at two decimals; null for `0/0`. */
function frameRate(value: unknown): number | null {
  const m = /^(\d+)\/(\d+)$/.exec(String(value ?? ""));
  if (!m || Number(m[2]) === 0 || Number(m[1]) === 0) return null;
  return Math.round((Number(m[1]) / Number(m[2])) * 100) / 100;
}

/**
 * Probes a video with ffprobe (`ffprobePath`, default the one on PATH) within `timeoutMs` (default 15 s),
 * its address space at most `maxMemoryBytes` (default DEFAULT_MAX_MEMORY_BYTES).
 * @throws FfprobeMissingError when ffprobe is missing; Error when it fails, times out or finds no duration.
 */
export function probeVideo(
  file: string,
  options: { ffprobePath?: string | undefined; timeoutMs?: number; maxMemoryBytes?: number | undefined } = {},
): Promise<VideoInfo> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const args = [
    "-max_alloc",
    String(MAX_ALLOC_BYTES),
    "-v",
    "error",
    "-print_format",
    "json",
    "-show_entries",
    "format=duration:stream=codec_type,codec_name,width,height,avg_frame_rate",
    file,
  ];
  const ffprobe = options.ffprobePath ?? mediaBinaries({}).ffprobe;
  if (!ffprobe) return Promise.reject(new FfprobeMissingError());
  const command = boundedCommand(ffprobe, args, {
    maxMemoryBytes: options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES,
    maxCpuSeconds: timeoutMs / 1000,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.argv, { stdio: ["ignore", "pipe", "ignore"], shell: false });
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= 1_000_000) chunks.push(c);
    });
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`ffprobe exited with ${code}`));
      try {
        const out = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const duration = Number(out?.format?.duration);
        if (!Number.isFinite(duration) || duration <= 0) throw new Error("no duration");
        const video = (out?.streams ?? []).find((s: { codec_type?: string }) => s.codec_type === "video");
        const audio = (out?.streams ?? []).find((s: { codec_type?: string }) => s.codec_type === "audio");
        resolve({
          durationSeconds: Math.round(duration * 1000) / 1000,
          width: Number.isInteger(video?.width) ? video.width : null,
          height: Number.isInteger(video?.height) ? video.height : null,
          hasAudio: audio !== undefined,
          frameRate: frameRate(video?.avg_frame_rate),
          videoCodec: typeof video?.codec_name === "string" ? video.codec_name : null,
          audioCodec: typeof audio?.codec_name === "string" ? audio.codec_name : null,
        });
      } catch (err) {
        reject(err);
      }
    });
  });
}
