/**
 * Limits on untrusted media (docs/ffmpeg.md "Limits on what enters"), enforced at upload
 * (src/web/media-upload.ts, from the file's header, before anything decodes it) and again wherever an image
 * is decoded (`boundedSharp`): a 1 MB PNG of 16000 x 16000 pixels would otherwise cost about 1 GB of memory
 * per decode.
 *
 * - images: at most 8,192 pixels a side and 40 megapixels;
 * - videos: at most 4,096 pixels a side and 60 seconds; a CTA clip for AI UGC automations 3 to 15 seconds
 *   (service spec 8 "UGC CTA video length", SPEC_LIMITS.ugcCtaVideoSeconds).
 *
 * sharp is imported here only (biome.json `noRestrictedImports` for src/): every decode goes
 * through `boundedSharp`, which sets `limitInputPixels`.
 */
import sharp, { type Sharp, type SharpInput, type SharpOptions } from "sharp";
import { SPEC_LIMITS } from "../config/index.ts";

export const MEDIA_LIMITS = {
  /** Largest image side, pixels. */
  imageMaxSide: 8192,
  /** Largest image area, pixels (40 megapixels). */
  imageMaxPixels: 40_000_000,
  /** Largest video side, pixels. */
  videoMaxSide: 4096,
  /** Longest video, seconds. */
  videoMaxSeconds: 60,
  /** Length of a CTA clip, seconds. */
  ctaSeconds: SPEC_LIMITS.ugcCtaVideoSeconds,
} as const;

/**
 * The problem with an image of `width` x `height` pixels, naming the limit, or undefined when it is within
 * MEDIA_LIMITS.
 */
export function imageLimitProblem(width: number, height: number): string | undefined {
  const { imageMaxSide: side, imageMaxPixels: pixels } = MEDIA_LIMITS;
  if (width > side || height > side)
    return `the image is ${width} x ${height} pixels; at most ${side} pixels a side are accepted`;
  if (width * height > pixels)
    return `the image is ${width} x ${height} pixels (${megapixels(width * height)} megapixels); at most ${megapixels(pixels)} megapixels are accepted`;
  return undefined;
}

/**
 * The problem with a video of `width` x `height` pixels lasting `seconds`, naming the limit, or undefined
 * when it is within MEDIA_LIMITS; `cta` applies the CTA clip length instead of the general one.
 */
export function videoLimitProblem(
  width: number | null,
  height: number | null,
  seconds: number,
  cta = false,
): string | undefined {
  const side = MEDIA_LIMITS.videoMaxSide;
  if ((width ?? 0) > side || (height ?? 0) > side)
    return `the video is ${width} x ${height} pixels; at most ${side} pixels a side are accepted`;
  if (cta) {
    const { min, max } = MEDIA_LIMITS.ctaSeconds;
    if (seconds < min || seconds > max)
      return `a CTA clip must be ${min} to ${max} seconds long; this video is ${seconds} seconds`;
  } else if (seconds > MEDIA_LIMITS.videoMaxSeconds)
    return `the video is ${seconds} seconds long; at most ${MEDIA_LIMITS.videoMaxSeconds} seconds are accepted`;
  return undefined;
}

/**
 * One libvips thread per image operation: the service runs several operations at once (the libuv pool) on
 * few cores, where more threads per operation only add per-thread buffers and allocator arenas (bench/README.md
 * "Media: images in parallel": about 20 MB less peak RSS per carousel render, same wall time).
 */
sharp.concurrency(1);

const megapixels = (n: number) => (Math.round(n / 100_000) / 10).toString();

/**
 * sharp with `limitInputPixels` = MEDIA_LIMITS.imageMaxPixels: decoding a larger input fails (sharp's
 * "Input image exceeds pixel limit") instead of allocating its pixels. Same arguments as `sharp()`.
 */
export function boundedSharp(options?: SharpOptions): Sharp;
export function boundedSharp(input?: SharpInput | SharpInput[], options?: SharpOptions): Sharp;
export function boundedSharp(a?: unknown, b?: SharpOptions): Sharp {
  const limit = { limitInputPixels: MEDIA_LIMITS.imageMaxPixels };
  const isOptions =
    typeof a === "object" &&
    a !== null &&
    !Array.isArray(a) &&
    !ArrayBuffer.isView(a) &&
    !(a instanceof ArrayBuffer);
  return isOptions
    ? sharp({ ...(a as SharpOptions), ...limit })
    : sharp(a as SharpInput | SharpInput[] | undefined, { ...b, ...limit });
}

export type { OverlayOptions } from "sharp";
