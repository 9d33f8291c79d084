/**
 * The video provider boundary (service spec 8 automation rows, README "Media stack"): renders a template to
 * an MP4 file (H.264 High, yuv420p, 1080x1920, 30 fps, AAC, `+faststart`) from generated images, the hook
 * text and, for AI UGC, the user's stored CTA video, which is always the final segment.
 */
import type { Readable } from "node:stream";

export type VideoTemplate = "ugc-video" | "2x2-grid" | "single-fade";

/** Output frame size (pixels) and rate (frames per second) of every template. */
export const VIDEO_WIDTH = 1080;
export const VIDEO_HEIGHT = 1920;
export const VIDEO_FPS = 30;

/** Seconds of each template's generated part (the AI UGC CTA clip adds its own 3 to 15 s). */
export const TEMPLATE_SECONDS: Record<VideoTemplate, number> = {
  "2x2-grid": 8,
  "single-fade": 6,
  "ugc-video": 4,
};

/** Images each template needs: 4 (grid), 1 (fade), 1 (UGC: the product image for the local hook clip). */
export const TEMPLATE_IMAGES: Record<VideoTemplate, number> = {
  "2x2-grid": 4,
  "single-fade": 1,
  "ugc-video": 1,
};

export interface VideoRequest {
  template: VideoTemplate;
  /** Image files' bytes (JPEG, PNG or WEBP), `TEMPLATE_IMAGES[template]` of them, in order. */
  images: Uint8Array[];
  /**
   * 2x2 grid: per image, how far its tile zooms into the picture's centre (1, the default, shows the whole
   * picture cover-fitted; 2 shows its middle half): a product with one photo fills a second tile with a
   * close-up of it. At most 4.
   */
  zooms?: number[] | undefined;
  /** On-screen hook text from the AI text provider; data, never logged. */
  hook: string;
  /** A small line under the hook (the product name); data, never logged. */
  caption?: string | undefined;
  /** The stored CTA video (required for ugc-video): opens a fresh read stream of the MP4. */
  cta?: { open(): Promise<Readable> } | undefined;
  /** Where to write the MP4 (a temp path of the media storage; the caller moves it into place). */
  outputFile: string;
  /** Stable seed of the run (motion choices). */
  seed: string;
}

/** The rendered file, as ffprobe measured it. */
export interface VideoResult {
  provider: "local" | "openai-compatible";
  template: VideoTemplate;
  /** Seconds, from ffprobe. */
  duration_seconds: number;
  width: number;
  height: number;
  /** File size in bytes. */
  bytes: number;
  /** AI UGC: where the hook clip came from (`generated` by a video model or `local` motion); else null. */
  hook_clip: "generated" | "local" | null;
  /**
   * The streams as ffprobe measured them (frames per second, codec names), recorded on the asset for the
   * network rules; not part of what a tool answers.
   */
  streams?: { frameRate: number | null; videoCodec: string | null; audioCodec: string | null };
}

/** Raised for a failed render; `reason` is safe to store (no user text, no provider body). */
export class VideoRenderError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = "VideoRenderError";
  }
}

export interface VideoProvider {
  readonly name: "local" | "openai-compatible";
  /** Renders `request.template` into `request.outputFile`. @throws VideoRenderError. */
  render(request: VideoRequest, signal?: AbortSignal): Promise<VideoResult>;
}
