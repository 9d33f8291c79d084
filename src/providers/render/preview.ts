/**
 * A design's preview: a sample slide (4:5, 1080x1350, slide 2 of 6 of a fictional product) rendered with the
 * local image provider's designed background and the slide renderer, so `list_carousel_formats` can show
 * what each design looks like. Deterministic: the same design always gives the same JPEG.
 */
import { boundedSharp as sharp } from "../media-limits.ts";
import { localImageProvider } from "../ai-image/local.ts";
import { designFor } from "./designs.ts";
import { renderSlide } from "./slide.ts";

const SAMPLE_PHOTO = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="800"><defs><linearGradient id="b" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f4e3c3"/><stop offset="1" stop-color="#d9b98a"/></linearGradient></defs><rect width="800" height="800" fill="url(#b)"/><ellipse cx="400" cy="690" rx="190" ry="26" fill="#000" opacity="0.2"/><rect x="300" y="250" width="200" height="440" rx="40" fill="#e0703a"/><rect x="340" y="150" width="120" height="120" rx="16" fill="#3b2a1e"/><rect x="320" y="420" width="160" height="120" rx="8" fill="#fff7ea"/></svg>`,
);

/** The preview JPEG of design `id` (any id: unknown ids fall back like the renderer does). */
export async function renderDesignPreview(id: string): Promise<Buffer> {
  const design = designFor(id);
  const photo = await sharp(SAMPLE_PHOTO).png().toBuffer();
  const size = { width: 1080, height: 1350 };
  const visual = await localImageProvider().generate({
    prompt: "sample",
    seed: `preview:${design.id}`,
    ...size,
    design: design.id,
    reference: photo,
  });
  const slide = await renderSlide({
    design,
    ...size,
    visual: visual.bytes,
    photo,
    content: {
      headline: "Vitamin C that absorbs in seconds, not minutes",
      body: "15% vitamin C with hyaluronic acid brightens skin in 14 days.",
      position: 2,
      total: 6,
      kind: "content",
      productName: "Glow Serum",
    },
  });
  return slide.bytes;
}
