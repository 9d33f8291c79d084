/**
 * The local image provider (default; offline, deterministic): a designed background per carousel design,
 * drawn with the renderer's stack. An SVG of the design's palette (a linear gradient at a seed-chosen angle,
 * soft radial light and two or three large shapes placed by the seed) is rasterised by @resvg/resvg-js; when
 * the request carries the product photo, a duotone of it (greyscale mapped from the design's background to
 * its accent colour, via sharp) is laid over the shapes at 60% opacity. The same seed, prompt and photo always yield the
 * same pixels. It stands in for a real image model and says so in its name (`local`).
 */
import { createHash } from "node:crypto";
import { Resvg } from "@resvg/resvg-js";
import { boundedSharp as sharp } from "../media-limits.ts";
import { designFor } from "../render/designs.ts";
import { type GeneratedImage, ImageGenerationError, type ImageProvider, type ImageRequest } from "./types.ts";

const rgb = (hex: string): [number, number, number] => {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};

/** The background SVG for `req` (pixels = the request's size). Exported for the renderer's previews. */
export function backgroundSvg(req: ImageRequest): string {
  const d = designFor(req.design ?? "bold-minimal");
  const h = createHash("sha256")
    .update(`${req.seed}\n${req.prompt}\n${req.headline ?? ""}`)
    .digest();
  const { width: W, height: H } = req;
  const p = d.palette;
  const angle = (h[0]! / 255) * 360;
  const shapes: string[] = [];
  const colours = [p.accent, p.surface, p.muted];
  const count = 2 + (h[1]! % 2);
  for (let i = 0; i < count; i++) {
    const cx = (h[2 + i * 4]! / 255) * W;
    const cy = (h[3 + i * 4]! / 255) * H;
    const r = (0.25 + (h[4 + i * 4]! / 255) * 0.35) * Math.min(W, H);
    const c = colours[i % colours.length]!;
    const op = (0.25 + (h[5 + i * 4]! / 255) * 0.35).toFixed(2);
    if (h[5 + i * 4]! % 3 === 0) {
      const rot = (h[6 + i * 4]! / 255) * 90;
      shapes.push(
        `<rect x="${cx - r}" y="${cy - r}" width="${2 * r}" height="${2 * r}" rx="${r * 0.2}" fill="${c}" opacity="${op}" transform="rotate(${rot} ${cx} ${cy})"/>`,
      );
    } else {
      shapes.push(`<circle cx="${cx}" cy="${cy}" r="${r}" fill="${c}" opacity="${op}"/>`);
    }
  }
  const rad = (angle * Math.PI) / 180;
  const x2 = (50 + 50 * Math.cos(rad)).toFixed(1);
  const y2 = (50 + 50 * Math.sin(rad)).toFixed(1);
  const x1 = (50 - 50 * Math.cos(rad)).toFixed(1);
  const y1 = (50 - 50 * Math.sin(rad)).toFixed(1);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
<defs>
<linearGradient id="g" x1="${x1}%" y1="${y1}%" x2="${x2}%" y2="${y2}%"><stop offset="0" stop-color="${p.background}"/><stop offset="1" stop-color="${p.surface}"/></linearGradient>
<radialGradient id="l" cx="${20 + (h[20]! % 60)}%" cy="${15 + (h[21]! % 40)}%" r="60%"><stop offset="0" stop-color="${p.accent}" stop-opacity="0.45"/><stop offset="1" stop-color="${p.accent}" stop-opacity="0"/></radialGradient>
</defs>
<rect width="${W}" height="${H}" fill="url(#g)"/>
<rect width="${W}" height="${H}" fill="url(#l)"/>
${shapes.join("\n")}
</svg>`;
}

/**
 * A duotone of `photo` (dark -> `dark`, light -> `light`) cover-fitted to `W` x `H`, at `alpha` opacity, as
 * raw RGBA pixels (4 bytes each).
 */
async function duotone(
  photo: Buffer,
  W: number,
  H: number,
  dark: string,
  light: string,
  alpha: number,
): Promise<Buffer> {
  const [dr, dg, db] = rgb(dark);
  const [lr, lg, lb] = rgb(light);
  // grey g in 0..255 -> dark + (light - dark) * g / 255 per channel: sharp's linear(a, b) on 3 channels.
  const luma: [number, number, number] = [0.2126, 0.7152, 0.0722]; // Rec. 709 luminance, kept in all three bands
  const tone = await sharp(photo)
    .resize(W, H, { fit: "cover" })
    .toColourspace("srgb")
    .removeAlpha()
    .recomb([luma, luma, luma])
    .linear([(lr - dr) / 255, (lg - dg) / 255, (lb - db) / 255], [dr, dg, db])
    .raw()
    .toBuffer();
  return sharp(tone, { raw: { width: W, height: H, channels: 3 } })
    .ensureAlpha(alpha)
    .raw()
    .toBuffer();
}

/** Creates the local provider. */
export function localImageProvider(): ImageProvider {
  return {
    name: "local",
    async generate(request: ImageRequest, signal?: AbortSignal): Promise<GeneratedImage> {
      signal?.throwIfAborted();
      const { width, height } = request;
      try {
        // resvg's raw RGBA pixels go to sharp as they are: no PNG is encoded and decoded in between.
        const base = new Resvg(backgroundSvg(request), { font: { loadSystemFonts: false } }).render().pixels;
        const raw = { width, height, channels: 4 as const };
        let img = sharp(base, { raw });
        if (request.reference) {
          const d = designFor(request.design ?? "bold-minimal");
          // The duotone at 60% over the shapes: the product reads clearly, the design's shapes show through.
          const veiled = await duotone(
            request.reference,
            width,
            height,
            d.palette.background,
            d.palette.accent,
            0.6,
          );
          img = sharp(base, { raw }).composite([{ input: veiled, raw }]);
        }
        const bytes = await img.removeAlpha().jpeg({ quality: 90 }).toBuffer();
        return { bytes, mimeType: "image/jpeg", width, height };
      } catch (err) {
        if (signal?.aborted) throw err;
        throw new ImageGenerationError("the local image renderer could not draw this slide's visual");
      }
    },
  };
}
