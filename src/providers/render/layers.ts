/**
 * The slide renderer's drawing layers (./slide.ts): satori nodes (boxes, labels, pills) and pictures. Pictures
 * are scaled and masked with sharp (through boundedSharp) and composited between the satori-drawn rasters
 * (resvg is slow at drawing large embedded bitmaps), keeping the layout's z-order. A product photo is never
 * distorted: it is cover-fitted when its aspect is close to its box's, else framed (contained whole on its
 * own backdrop colour, so a tall bottle in a wide box is shown entire, not cut to a band).
 */
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";
import { boundedSharp as sharp, type OverlayOptions } from "../media-limits.ts";
import type { Design } from "./designs.ts";
import { loadFonts } from "./fonts.ts";
import { box, h, type Node } from "./tree.ts";

/** A rectangle in pixels. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A picture placed in the layout. */
export interface ImageLayer {
  kind: "image";
  bytes: Buffer;
  rect: Rect;
  /** `cover` fills the box (cropping); `product` covers when the aspects are close, else frames it whole. */
  fit: "cover" | "product";
  /** Corner radius, pixels; `top` rounds only the top corners. */
  radius?: number | undefined;
  top?: boolean | undefined;
  opacity?: number | undefined;
  /** A CSS border drawn over the picture's edge, e.g. "6px solid #ffcc00". */
  border?: string | undefined;
}

export type Layer = Node | ImageLayer | null;

/** `#rrggbb` at `alpha` as a CSS rgba() colour. */
export const rgba = (hex: string, alpha: number) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
};

/** Largest aspect ratio between a product photo and its box that is still cover-fitted (else framed). */
const COVER_ASPECT_SLACK = 1.2;

/** A picture layer of `bytes` in `r` (null when there are no bytes). */
export function image(
  bytes: Buffer | undefined,
  r: Rect,
  style: {
    borderRadius?: number;
    top?: boolean;
    border?: string;
    opacity?: number;
    fit?: ImageLayer["fit"];
  } = {},
): ImageLayer | null {
  if (!bytes) return null;
  return {
    kind: "image",
    bytes,
    rect: { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.w), h: Math.round(r.h) },
    fit: style.fit ?? "cover",
    radius: style.borderRadius,
    top: style.top,
    opacity: style.opacity,
    border: style.border,
  };
}

/** The product photo in `r`: cover-fitted or framed, never distorted (see ImageLayer.fit). */
export const productImage = (
  photo: Buffer | undefined,
  r: Rect,
  style: Omit<Parameters<typeof image>[2] & object, "fit"> = {},
) => image(photo, r, { ...style, fit: "product" });

/** `bytes` shrunk to a `size` x `size` thumbnail (`fit` as sharp's), as raw sRGB pixels (3 bytes each). */
export function thumbnailRgb(bytes: Buffer, size: number, fit: "fill" | "cover"): Promise<Buffer> {
  return sharp(bytes).resize(size, size, { fit }).toColourspace("srgb").removeAlpha().raw().toBuffer();
}

/** The mean colour of the photo's four corners (its backdrop, for framing it seamlessly). */
async function backdropColour(bytes: Buffer) {
  const px = await thumbnailRgb(bytes, 16, "fill");
  const at = [0, 15, 240, 255].map((i) => i * 3);
  const mean = (c: number) => Math.round(at.reduce((s, i) => s + px[i + c]!, 0) / at.length);
  return { r: mean(0), g: mean(1), b: mean(2), alpha: 1 };
}

/** `bytes` resized into `w` x `h` without distortion, per `fit`, as an sRGB pipeline. */
async function fitted(bytes: Buffer, w: number, hgt: number, fit: ImageLayer["fit"]) {
  const src = sharp(bytes);
  if (fit === "product") {
    const meta = await src.metadata();
    const ratio = (meta.width ?? w) / (meta.height ?? hgt) / (w / hgt);
    if (Math.max(ratio, 1 / ratio) > COVER_ASPECT_SLACK) {
      return src.resize(w, hgt, { fit: "contain", background: await backdropColour(bytes) });
    }
  }
  return src.resize(w, hgt, { fit: "cover" });
}

/** The picture fitted to its box, with its opacity and rounded corners, as raw RGBA. */
async function pictureRaw(layer: ImageLayer): Promise<Buffer> {
  const { w, h: hgt } = layer.rect;
  const raw = await (await fitted(layer.bytes, Math.max(1, w), Math.max(1, hgt), layer.fit))
    .toColourspace("srgb")
    .removeAlpha()
    .ensureAlpha(layer.opacity ?? 1)
    .raw()
    .toBuffer();
  if (!layer.radius) return raw;
  const r = layer.radius;
  const mask = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${hgt}"><rect width="${w}" height="${hgt}" rx="${r}" ry="${r}" fill="#fff"/>${layer.top ? `<rect y="${r}" width="${w}" height="${hgt - r}" fill="#fff"/>` : ""}</svg>`,
  );
  return sharp(raw, { raw: { width: w, height: hgt, channels: 4 } })
    .composite([{ input: mask, blend: "dest-in" }])
    .raw()
    .toBuffer();
}

/** A box of `r` with a CSS `style` (a colour, a gradient, a border). */
export const fill = (r: Rect, style: Record<string, unknown>): Node =>
  h("div", { style: { ...box(r.x, r.y, r.w, r.h), ...style } });

/** A single-line text label in `r`: `font` is [family, size px, weight], in `color`, with extra `style`. */
export const label = (
  r: Rect,
  text: string,
  color: string,
  font: [family: string, size: number, weight?: number],
  style: Record<string, unknown> = {},
): Node =>
  h(
    "div",
    {
      style: {
        ...box(r.x, r.y, r.w, r.h),
        color,
        fontFamily: font[0],
        fontSize: font[1],
        ...(font[2] ? { fontWeight: font[2] } : {}),
        ...style,
      },
    },
    text,
  );

/** A rounded pill of `text` at (x, y): translucent background, or the accent colour when `inverted`. */
export function pill(
  text: string,
  x: number,
  y: number,
  design: Design,
  size: number,
  inverted = false,
): Node {
  return h(
    "div",
    {
      style: {
        position: "absolute",
        left: x,
        top: y,
        display: "flex",
        padding: `${Math.round(size * 0.35)}px ${Math.round(size * 0.7)}px`,
        borderRadius: size * 2,
        backgroundColor: inverted ? design.palette.accent : rgba(design.palette.background, 0.72),
        color: inverted ? design.palette.background : design.palette.text,
        fontFamily: "Inter",
        fontWeight: 700,
        fontSize: size,
        lineHeight: 1,
      },
    },
    text,
  );
}

/** Rasterises satori nodes on a transparent `W` x `H` canvas: raw RGBA pixels. */
async function rasteriseRaw(nodes: Node[], W: number, H: number): Promise<Buffer> {
  const tree = h("div", { style: { display: "flex", position: "relative", width: W, height: H } }, ...nodes);
  const svg = await satori(tree as never, { width: W, height: H, fonts: loadFonts() });
  // resvg's `pixels` is already a Buffer of its own: used as is (a copy would be another W x H x 4 bytes).
  return new Resvg(svg, { fitTo: { mode: "original" }, font: { loadSystemFonts: false } }).render().pixels;
}

/** True when `layer` is a plain box of the whole `W` x `H` canvas filled with `bg` and nothing else. */
function isCanvasFill(layer: Layer, W: number, H: number, bg: string): boolean {
  if (!layer || "kind" in layer || layer.type !== "div") return false;
  const { style, children, ...other } = layer.props as {
    style?: Record<string, unknown>;
    children?: unknown;
  };
  const plain = { ...box(0, 0, W, H), backgroundColor: bg };
  return (
    Object.keys(other).length === 0 &&
    (children === undefined || (Array.isArray(children) && children.length === 0)) &&
    style !== undefined &&
    Object.keys(style).length === Object.keys(plain).length &&
    Object.entries(plain).every(([k, v]) => style[k] === v)
  );
}

/** One composite input of a slide: satori nodes drawn as one raster, a picture, or an input drawn earlier. */
export type Step =
  | { kind: "nodes"; nodes: Node[] }
  | { kind: "picture"; layer: ImageLayer }
  | { kind: "drawn"; input: OverlayOptions };

/**
 * The composite inputs `layers` make over a `bg` canvas, in order: consecutive satori nodes become one
 * transparent raster, each picture its own input, a picture's border joins the raster above it. A first
 * full-canvas fill of the canvas's own colour changes no pixel and would cost a full-size rasterisation: it
 * is left out.
 */
export function plan(layers: Layer[], W: number, H: number, bg: string): Step[] {
  const steps: Step[] = [];
  let pending: Node[] = [];
  const flush = () => {
    if (pending.length > 0) steps.push({ kind: "nodes", nodes: pending });
    pending = [];
  };
  for (const layer of layers) {
    if (!layer) continue;
    if (steps.length === 0 && pending.length === 0 && isCanvasFill(layer, W, H, bg)) continue;
    if ("kind" in layer && layer.kind === "image") {
      flush();
      steps.push({ kind: "picture", layer });
      if (layer.border)
        pending.push(
          fill(layer.rect, {
            border: layer.border,
            borderRadius: layer.radius ?? 0,
            ...(layer.top ? { borderBottomLeftRadius: 0, borderBottomRightRadius: 0 } : {}),
          }),
        );
    } else {
      pending.push(layer as Node);
    }
  }
  flush();
  return steps;
}

/** The composite input of `step` (pixels of the whole `W` x `H` canvas, or of the picture's box). */
async function inputOf(step: Step, W: number, H: number): Promise<OverlayOptions> {
  if (step.kind === "drawn") return step.input;
  if (step.kind === "nodes")
    return {
      input: await rasteriseRaw(step.nodes, W, H),
      raw: { width: W, height: H, channels: 4 },
      left: 0,
      top: 0,
    };
  const r = step.layer.rect;
  return {
    input: await pictureRaw(step.layer),
    raw: { width: r.w, height: r.h, channels: 4 },
    left: r.x,
    top: r.y,
  };
}

/**
 * Draws `step` now and keeps it as a losslessly compressed PNG (small while it waits; decoded to the same
 * pixels when composited), for a slide drawn later (./slide.ts `prepareSlide`).
 */
export async function drawnEarly(step: Step, W: number, H: number): Promise<Step> {
  const { input, raw, left, top } = await inputOf(step, W, H);
  const png = await sharp(input as Buffer, { raw: raw! })
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer();
  return { kind: "drawn", input: { input: png, left, top } };
}

/**
 * Composites `layers` in order over a `bg` canvas (see `plan`), or the given `steps` of a plan. @returns raw
 * RGBA of `W` x `H`.
 */
export async function compose(
  layers: Layer[],
  W: number,
  H: number,
  bg: string,
  steps: Step[] = plan(layers, W, H, bg),
): Promise<Buffer> {
  const inputs: OverlayOptions[] = [];
  for (const step of steps) inputs.push(await inputOf(step, W, H));
  return sharp({ create: { width: W, height: H, channels: 4, background: bg } })
    .composite(inputs)
    .raw()
    .toBuffer();
}
