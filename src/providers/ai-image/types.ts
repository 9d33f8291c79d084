/**
 * The AI image provider boundary (DESIGN.md section 1, providers/): turns a slide or frame plan into image
 * bytes. Implementations never see user ids or credentials of other providers; prompts are data.
 */

/** What to draw. `prompt` is the plan text (never logged); `seed` makes the output reproducible. */
export interface ImageRequest {
  prompt: string;
  /** Stable seed, e.g. `${post_id}:${position}:${attempt}`. */
  seed: string;
  width: number;
  height: number;
  /** Short text to render or describe (headline); optional. */
  headline?: string;
  /** The carousel design id (src/providers/render/designs.ts) whose palette the visual should follow. */
  design?: string | undefined;
  /** The product photo (bytes of any format sharp reads) the visual may be derived from. */
  reference?: Buffer | undefined;
}

export interface GeneratedImage {
  bytes: Buffer;
  mimeType: "image/png" | "image/jpeg" | "image/webp";
  width: number;
  height: number;
}

/** Raised by a provider for one failed image; `reason` is a safe, provider-neutral text. */
export class ImageGenerationError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = "ImageGenerationError";
  }
}

export interface ImageProvider {
  readonly name: string;
  /**
   * Generates one image. @throws ImageGenerationError for a per-image failure (the caller marks the slide
   * failed and continues); any other error is unexpected.
   */
  generate(request: ImageRequest, signal?: AbortSignal): Promise<GeneratedImage>;
}

/** Pixel sizes of the carousel formats. */
export const FORMAT_SIZES: Record<string, { width: number; height: number }> = {
  square: { width: 1080, height: 1080 },
  portrait: { width: 1080, height: 1350 },
  story: { width: 1080, height: 1920 },
};
