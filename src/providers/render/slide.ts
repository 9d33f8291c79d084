/**
 * The slide renderer (service spec 1.7 carousel slides): lays a slide out with satori (HTML/CSS flexbox to
 * SVG, fonts from fonts.ts), rasterises it with @resvg/resvg-js and encodes it with sharp as a baseline sRGB
 * JPEG of exactly the format's pixel size. Every slide carries its headline (auto-fitted to its box, see
 * fit.ts), the body where the layout has one, the slide number ("2/6") and the product photo where the
 * layout has a photo area. (Video text overlays are src/providers/video/overlay.ts.)
 */
import { boundedSharp as sharp } from "../media-limits.ts";
import { type Design, designFor, type FontChoice } from "./designs.ts";
import { type FitRequest, type FitResult, fitText, textStyle } from "./fit.ts";
import {
  compose,
  drawnEarly,
  type ImageLayer,
  type Layer,
  pill,
  plan,
  type Rect,
  type Step,
} from "./layers.ts";
import { ctaLayout, LAYOUTS, type SlideContent } from "./layouts.ts";
import { paletteFromPhoto } from "./photo-accent.ts";
import { box, h, type Node } from "./tree.ts";

export type { Rect } from "./layers.ts";
export type { SlideContent } from "./layouts.ts";

export interface SlideRequest {
  design: Design | string;
  /** Output size, pixels. */
  width: number;
  height: number;
  content: SlideContent;
  /** The slide's generated visual (any format sharp reads); cover-fitted behind the layout. */
  visual?: Buffer | undefined;
  /**
   * The product photo (the product's first image asset) for the layout's photo area, shown on the hook and
   * content slides of every design and on the CTA slide (falls back to the visual). Designs with
   * `accentFromPhoto` take their accent colour from it (./photo-accent.ts).
   */
  photo?: Buffer | undefined;
}

export interface RenderedSlide {
  bytes: Buffer;
  mimeType: "image/jpeg";
  width: number;
  height: number;
  /** Where the headline was laid out and how it was fitted (pixels). */
  headline: { box: Rect; fit: FitResult };
  /** Where the product photo was drawn (pixels), or undefined when the slide shows none. */
  photo: Rect | undefined;
  /** The accent colour the slide was drawn with (`#rrggbb`: the design's, or taken from the photo). */
  accent: string;
}

/** The largest JPEG the networks accept for a carousel slide, bytes. */
export const MAX_SLIDE_BYTES = 8 * 1024 * 1024;

/** A fitted text block: the largest size that fits `r`, never smaller than `min` unless the text is cut. */
async function fittedText(
  text: string,
  r: Rect,
  font: FontChoice,
  color: string,
  opts: {
    min: number;
    max: number;
    lineHeight?: number;
    align?: "left" | "center";
    valign?: "start" | "end" | "center";
  },
): Promise<{ node: Node; fit: FitResult }> {
  const req: FitRequest = {
    text,
    width: r.w,
    height: r.h,
    font,
    minSize: opts.min,
    maxSize: opts.max,
    lineHeight: opts.lineHeight ?? 1.1,
  };
  let fit = await fitText(req);
  // Even the smallest size overflows: shorten on word boundaries until it fits (never clipped).
  while (!fit.fits && req.text.includes(" ")) {
    req.text = `${req.text.slice(0, req.text.lastIndexOf(" ")).replace(/[\s,.;:!?…-]+$/, "")}…`;
    fit = await fitText(req);
  }
  const align = opts.align ?? "left";
  const justify = { start: "flex-start", end: "flex-end", center: "center" }[opts.valign ?? "start"];
  const node = h(
    "div",
    {
      style: {
        ...box(r.x, r.y, r.w, r.h),
        flexDirection: "column",
        justifyContent: justify,
        alignItems: align === "center" ? "center" : "flex-start",
      },
    },
    h(
      "div",
      {
        style: {
          ...textStyle(req, fit.fontSize),
          color,
          width: r.w,
          textAlign: align,
          justifyContent: align === "center" ? "center" : "flex-start",
        },
      },
      req.text,
    ),
  );
  return { node, fit };
}

/** Lays out `req`: the slide's layers bottom to top and the fitted headline. */
async function layout(req: SlideRequest): Promise<{
  layers: Layer[];
  bg: string;
  headline: { box: Rect; fit: FitResult };
  photo: Rect | undefined;
  accent: string;
}> {
  let d = typeof req.design === "string" ? designFor(req.design) : req.design;
  if (d.accentFromPhoto && req.photo) d = { ...d, palette: await paletteFromPhoto(d.palette, req.photo) };
  const { width: W, height: H, content: c } = req;
  const fn = c.kind === "cta" ? ctaLayout : LAYOUTS[d.layout];
  const laid = fn(d, W, H, c, req.visual, req.photo);
  const text = d.uppercase ? c.headline.toUpperCase() : c.headline;
  const headline = await fittedText(text, laid.headline, d.fonts.headline, laid.headlineColor, {
    min: 28,
    max: laid.headlineMax,
    lineHeight: d.uppercase ? 1 : 1.12,
    align: laid.headlineAlign ?? "left",
    valign: laid.headlineValign ?? "start",
  });
  const body =
    laid.body && c.body && laid.body.h >= 30
      ? await fittedText(c.body, laid.body, d.fonts.body, laid.bodyColor ?? d.palette.text, {
          min: 20,
          max: laid.bodyMax ?? 40,
          lineHeight: 1.35,
          align: laid.bodyAlign ?? "left",
        })
      : undefined;
  const layers: Layer[] = [
    ...laid.layers,
    headline.node,
    body?.node ?? null,
    ...(laid.extras ?? []),
    pill(`${c.position}/${c.total}`, laid.number.x, laid.number.y, d, 28),
  ];
  const photo = req.photo
    ? laid.layers.find((l): l is ImageLayer => l !== null && "kind" in l && l.bytes === req.photo)?.rect
    : undefined;
  return {
    layers,
    bg: d.palette.background,
    headline: { box: laid.headline, fit: headline.fit },
    photo,
    accent: d.palette.accent,
  };
}

/**
 * Renders one slide as an sRGB JPEG of exactly `width` x `height` pixels, under 8 MB (quality is lowered
 * until it is). Same as `prepareSlide(req)` then `draw(req.visual)`.
 * @throws Error when a supplied image cannot be decoded (sharp's error).
 */
export async function renderSlide(req: SlideRequest): Promise<RenderedSlide> {
  return (await prepareSlide(req)).draw(req.visual);
}

/** A slide laid out (design, palette, fitted text) whose pixels are not drawn yet; see `prepareSlide`. */
export interface PreparedSlide {
  /**
   * Draws the slide with its generated `visual` (any format sharp reads; undefined: none) as `renderSlide`
   * does: an sRGB JPEG of the request's size, under 8 MB. Call it once.
   * @throws Error when `visual` or the photo cannot be decoded (sharp's error).
   */
  draw(visual: Buffer | undefined): Promise<RenderedSlide>;
}

/**
 * Lays out a slide before its visual is known: the design (with the photo's accent), the layout's boxes and
 * the auto-fitted headline and body (satori; the costly part of a layout), which do not depend on the
 * visual. The carousel pipeline prepares each slide while its image is being generated and draws it when
 * the image arrives (src/domain/carousels/run.ts). `req.visual` is ignored; pass it to `draw`.
 * @throws Error when the photo cannot be decoded for a design that takes its accent from it.
 */
export async function prepareSlide(req: Omit<SlideRequest, "visual">): Promise<PreparedSlide> {
  // The layout places the visual by reference: a placeholder stands for it until `draw` is given the bytes.
  const placeholder = Buffer.alloc(0);
  const laid = await layout({ ...req, visual: placeholder });
  // Every composite input but the visual's (text rasters, cards, the product photo) is drawn now, while the
  // visual is on its way, and kept as a small lossless PNG: `draw` only adds the visual and encodes.
  const steps: Step[] = [];
  for (const step of plan(laid.layers, req.width, req.height, laid.bg))
    steps.push(
      step.kind === "picture" && step.layer.bytes === placeholder
        ? step
        : await drawnEarly(step, req.width, req.height),
    );
  return {
    async draw(visual) {
      const withVisual = steps.flatMap((step): Step[] =>
        step.kind === "picture" && step.layer.bytes === placeholder
          ? visual
            ? [{ kind: "picture", layer: { ...step.layer, bytes: visual } }]
            : []
          : [step],
      );
      return drawn(req, laid, withVisual);
    },
  };
}

/** Rasterises laid-out layers and encodes them as the slide's JPEG (quality lowered until under 8 MB). */
async function drawn(
  req: Omit<SlideRequest, "visual">,
  laid: Awaited<ReturnType<typeof layout>>,
  steps: Step[],
): Promise<RenderedSlide> {
  const { layers, bg, headline, photo, accent } = laid;
  const raw = await compose(layers, req.width, req.height, bg, steps);
  let quality = 88;
  let bytes: Buffer;
  do {
    bytes = await sharp(raw, { raw: { width: req.width, height: req.height, channels: 4 } })
      .flatten({ background: bg })
      .toColourspace("srgb")
      .withIccProfile("srgb")
      .jpeg({ quality, chromaSubsampling: "4:4:4" })
      .toBuffer();
    quality -= 10;
  } while (bytes.length > MAX_SLIDE_BYTES && quality > 30);
  return { bytes, mimeType: "image/jpeg", width: req.width, height: req.height, headline, photo, accent };
}
