/**
 * The local image provider (default; offline, deterministic): a PNG whose colours and bands derive from the
 * SHA-256 of the seed and prompt, so the same request always yields the same bytes. It draws no text; it
 * stands in for a real image model during development and tests.
 */
import { createHash } from "node:crypto";
import { encodePng, type Rgb } from "./png.ts";
import type { GeneratedImage, ImageProvider, ImageRequest } from "./types.ts";

/** Creates the local provider. */
export function localImageProvider(): ImageProvider {
  return {
    name: "local",
    async generate(request: ImageRequest): Promise<GeneratedImage> {
      const h = createHash("sha256")
        .update(`${request.seed}\n${request.prompt}\n${request.headline ?? ""}`)
        .digest();
      const base: Rgb = [h[0]!, h[1]!, h[2]!];
      const accent: Rgb = [255 - h[0]!, h[3]!, 255 - h[2]!];
      const band = 8 + (h[4]! % 24);
      const { width, height } = request;
      const top = Math.floor(height * 0.62);
      const bytes = encodePng(width, height, (x, y) => {
        if (y > top) return Math.floor(x / band) % 2 === 0 ? accent : base;
        return base;
      });
      return { bytes, mimeType: "image/png", width, height };
    },
  };
}
