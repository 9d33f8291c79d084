/**
 * The slide renderer (service spec 1.7 carousel slides): lays a slide out with satori (HTML/CSS flexbox to
 * SVG, fonts from fonts.ts), rasterises it with @resvg/resvg-js and encodes it with sharp as a baseline sRGB
 * JPEG of exactly the format's pixel size. Every slide carries its headline (auto-fitted to its box, see
 * fit.ts), the body where the layout has one, the slide number ("2/6") and the product photo where the
 * layout has a photo area. `renderTextOverlay` renders text alone on a transparent PNG for video overlays.
 */
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";
import { boundedSharp as sharp, type OverlayOptions } from "../media-limits.ts";
import { type Design, designFor, type FontChoice } from "./designs.ts";
import { type FitRequest, type FitResult, fitText, textStyle } from "./fit.ts";
import { loadFonts } from "./fonts.ts";
import { box, h, type Node } from "./tree.ts";

/** A rectangle in pixels. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** What a slide says. */
export interface SlideContent {
  headline: string;
  /** Supporting text; layouts without a body area ignore it. */
  body?: string | undefined;
  /** 1-based position and slide count, shown as "position/total". */
  position: number;
  total: number;
  /** `hook` opens the carousel (names the product), `cta` closes it; the rest are `content`. */
  kind: "hook" | "content" | "cta";
  productName: string;
  /** CTA slide: the link text on the button (e.g. "Shop at example.com"). */
  linkText?: string | undefined;
}

export interface SlideRequest {
  design: Design | string;
  /** Output size, pixels. */
  width: number;
  height: number;
  content: SlideContent;
  /** The slide's generated visual (any format sharp reads); cover-fitted behind the layout. */
  visual?: Buffer | undefined;
  /** The product photo for the layout's photo area (falls back to the visual). */
  photo?: Buffer | undefined;
}

export interface RenderedSlide {
  bytes: Buffer;
  mimeType: "image/jpeg";
  width: number;
  height: number;
  /** Where the headline was laid out and how it was fitted (pixels). */
  headline: { box: Rect; fit: FitResult };
}

/** The largest JPEG the networks accept for a carousel slide, bytes. */
export const MAX_SLIDE_BYTES = 8 * 1024 * 1024;

const rgba = (hex: string, alpha: number) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
};

/**
 * A picture placed in the layout. Pictures are scaled and masked with sharp and composited between the
 * satori-drawn layers (resvg is slow at drawing large embedded bitmaps), keeping the layout's z-order.
 */
interface ImageLayer {
  kind: "image";
  bytes: Buffer;
  rect: Rect;
  /** Corner radius, pixels; `top` rounds only the top corners. */
  radius?: number | undefined;
  top?: boolean | undefined;
  opacity?: number | undefined;
  /** A CSS border drawn over the picture's edge, e.g. "6px solid #ffcc00". */
  border?: string | undefined;
}

type Layer = Node | ImageLayer | null;

async function image(
  bytes: Buffer | undefined,
  r: Rect,
  style: { borderRadius?: number; top?: boolean; border?: string; opacity?: number } = {},
): Promise<ImageLayer | null> {
  if (!bytes) return null;
  return {
    kind: "image",
    bytes,
    rect: { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.w), h: Math.round(r.h) },
    radius: style.borderRadius,
    top: style.top,
    opacity: style.opacity,
    border: style.border,
  };
}

/** The picture cover-fitted to its box, with its opacity and rounded corners, as raw RGBA. */
async function pictureRaw(layer: ImageLayer): Promise<Buffer> {
  const { w, h: hgt } = layer.rect;
  const raw = await sharp(layer.bytes)
    .resize(Math.max(1, w), Math.max(1, hgt), { fit: "cover" })
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

const fill = (r: Rect, style: Record<string, unknown>): Node =>
  h("div", { style: { ...box(r.x, r.y, r.w, r.h), ...style } });

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

function pill(text: string, x: number, y: number, design: Design, size: number, inverted = false): Node {
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

interface Laid {
  layers: Layer[];
  headline: Rect;
  headlineColor: string;
  headlineMax: number;
  headlineAlign?: "left" | "center";
  headlineValign?: "start" | "end" | "center";
  body?: Rect;
  bodyColor?: string;
  bodyMax?: number;
  bodyAlign?: "left" | "center";
  extras?: Layer[];
  /** Where the "2/6" pill goes (top-left corner of the pill). */
  number: { x: number; y: number };
}

type LayoutFn = (
  d: Design,
  W: number,
  H: number,
  c: SlideContent,
  visual?: Buffer,
  photo?: Buffer,
) => Promise<Laid>;

const two = (n: number) => String(n).padStart(2, "0");

const LAYOUTS: Record<Design["layout"], LayoutFn> = {
  async "full-bleed"(d, W, H, c, visual) {
    const pad = Math.round(W * 0.074);
    const top = Math.round(H * 0.4);
    const hh = Math.round(H * 0.32);
    return {
      layers: [
        fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: d.palette.background }),
        await image(visual, { x: 0, y: 0, w: W, h: H }),
        fill(
          { x: 0, y: 0, w: W, h: H },
          {
            backgroundImage: `linear-gradient(180deg, ${rgba(d.palette.background, 0.1)} 0%, ${rgba(d.palette.background, 0.78)} 45%, ${rgba(d.palette.background, 0.96)} 100%)`,
          },
        ),
        fill({ x: pad, y: top - 36, w: 140, h: 12 }, { backgroundColor: d.palette.accent }),
      ],
      headline: { x: pad, y: top, w: W - 2 * pad, h: hh },
      headlineColor: d.palette.text,
      headlineMax: 190,
      headlineValign: "end",
      body: { x: pad, y: top + hh + 28, w: W - 2 * pad, h: H - top - hh - 28 - pad - 40 },
      bodyColor: d.palette.muted,
      bodyMax: 44,
      extras: [pill(c.productName.slice(0, 40), pad, pad, d, 26)],
      number: { x: W - pad - 110, y: pad },
    };
  },
  async "photo-card"(d, W, H, _c, visual, photo) {
    const pad = Math.round(W * 0.065);
    const card: Rect = { x: pad, y: pad, w: W - 2 * pad, h: H - 2 * pad };
    const photoH = Math.round(card.h * 0.56);
    const inner = 48;
    const textTop = card.y + photoH + 36;
    const hh = Math.round((card.h - photoH) * 0.46);
    return {
      layers: [
        fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: d.palette.background }),
        await image(visual, { x: 0, y: 0, w: W, h: H }),
        // A flat offset shadow: resvg's blur filter costs seconds on a full-size canvas.
        fill(
          { ...card, x: card.x + 10, y: card.y + 16 },
          { backgroundColor: "rgba(0,0,0,0.22)", borderRadius: 40 },
        ),
        fill(card, { backgroundColor: d.palette.surface, borderRadius: 36 }),
        await image(
          photo ?? visual,
          { x: card.x, y: card.y, w: card.w, h: photoH },
          { borderRadius: 36, top: true },
        ),
        fill({ x: card.x, y: card.y + photoH, w: card.w, h: 10 }, { backgroundColor: d.palette.accent }),
      ],
      headline: { x: card.x + inner, y: textTop, w: card.w - 2 * inner, h: hh },
      headlineColor: d.palette.text,
      headlineMax: 110,
      body: {
        x: card.x + inner,
        y: textTop + hh + 18,
        w: card.w - 2 * inner,
        h: card.y + card.h - (textTop + hh + 18) - inner,
      },
      bodyColor: d.palette.muted,
      bodyMax: 38,
      number: { x: card.x + card.w - 140, y: card.y + 28 },
    };
  },
  async split(d, W, H, c, visual, photo) {
    const pad = Math.round(W * 0.074);
    const portrait = H > W * 1.1;
    const img: Rect = portrait
      ? { x: 0, y: 0, w: W, h: Math.round(H * 0.5) }
      : { x: 0, y: 0, w: Math.round(W / 2), h: H };
    const panel: Rect = portrait
      ? { x: 0, y: img.h, w: W, h: H - img.h }
      : { x: img.w, y: 0, w: W - img.w, h: H };
    const p = Math.round(pad * (portrait ? 1 : 0.7));
    const hh = Math.round(panel.h * (portrait ? 0.42 : 0.45));
    return {
      layers: [
        fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: d.palette.background }),
        await image(visual, panel, { opacity: 0.16 }),
        await image(photo ?? visual, img),
        fill(portrait ? { x: 0, y: img.h - 6, w: W, h: 12 } : { x: img.w - 6, y: 0, w: 12, h: H }, {
          backgroundColor: d.palette.accent,
        }),
        h(
          "div",
          {
            style: {
              ...box(panel.x + p, panel.y + p, 400, 40),
              color: d.palette.accent,
              fontFamily: "Inter",
              fontWeight: 700,
              fontSize: 28,
            },
          },
          `${two(c.position)} / ${c.productName.slice(0, 24)}`,
        ),
      ],
      headline: { x: panel.x + p, y: panel.y + p + 60, w: panel.w - 2 * p, h: hh },
      headlineColor: d.palette.text,
      headlineMax: 120,
      body: {
        x: panel.x + p,
        y: panel.y + p + 60 + hh + 24,
        w: panel.w - 2 * p,
        h: panel.h - (2 * p + 60 + hh + 24) - 30,
      },
      bodyColor: d.palette.muted,
      bodyMax: 40,
      number: { x: W - pad - 110, y: pad },
    };
  },
  async editorial(d, W, H, c, visual, photo) {
    const pad = Math.round(W * 0.083);
    const photoRect: Rect = { x: pad, y: Math.round(H * 0.6), w: W - 2 * pad, h: Math.round(H * 0.4) - pad };
    const hh = Math.round(H * 0.27);
    const top = pad + 96;
    return {
      layers: [
        fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: d.palette.background }),
        await image(visual, { x: 0, y: 0, w: W, h: H }, { opacity: 0.1 }),
        h(
          "div",
          {
            style: {
              ...box(pad, pad, W - 2 * pad, 44),
              color: d.palette.accent,
              fontFamily: "Inter",
              fontWeight: 700,
              fontSize: 26,
              letterSpacing: 4,
            },
          },
          `NO. ${two(c.position)} — ${c.productName.toUpperCase().slice(0, 36)}`,
        ),
        fill({ x: pad, y: pad + 60, w: W - 2 * pad, h: 3 }, { backgroundColor: d.palette.text }),
        fill(
          { x: photoRect.x - 14, y: photoRect.y - 14, w: photoRect.w + 28, h: photoRect.h + 28 },
          { border: `3px solid ${d.palette.text}` },
        ),
        await image(photo ?? visual, photoRect),
      ],
      headline: { x: pad, y: top, w: W - 2 * pad, h: hh },
      headlineColor: d.palette.text,
      headlineMax: 120,
      body: { x: pad, y: top + hh + 20, w: W - 2 * pad, h: photoRect.y - 40 - (top + hh + 20) },
      bodyColor: d.palette.muted,
      bodyMax: 40,
      number: { x: W - pad - 110, y: H - pad + 12 - 52 },
    };
  },
  async numbered(d, W, H, c, visual, photo) {
    const pad = Math.round(W * 0.074);
    const numSize = Math.round(W * 0.22);
    const top = pad + numSize + 20;
    const hh = Math.round(H * 0.24);
    const ph = Math.round(W * 0.3);
    return {
      layers: [
        fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: d.palette.background }),
        await image(visual, { x: 0, y: 0, w: W, h: H }),
        fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: rgba(d.palette.background, 0.86) }),
        h(
          "div",
          {
            style: {
              ...box(pad, pad, W - 2 * pad, numSize),
              color: d.palette.accent,
              fontFamily: "Bebas Neue",
              fontSize: numSize,
              lineHeight: 1,
            },
          },
          two(c.position),
        ),
        fill({ x: pad, y: top - 12, w: W - 2 * pad, h: 4 }, { backgroundColor: d.palette.accent }),
        await image(
          photo ?? visual,
          { x: W - pad - ph, y: H - pad - ph, w: ph, h: ph },
          { borderRadius: 28, border: `6px solid ${d.palette.accent}` },
        ),
        ...[0, 1, 2].map((i) =>
          fill(
            { x: pad, y: H - pad - ph + i * 48 + 20, w: 28, h: 28 },
            { backgroundColor: i < c.position % 4 ? d.palette.accent : d.palette.surface, borderRadius: 6 },
          ),
        ),
      ],
      headline: { x: pad, y: top + 20, w: W - 2 * pad, h: hh },
      headlineColor: d.palette.text,
      headlineMax: 110,
      body: { x: pad, y: top + 20 + hh + 24, w: W - 2 * pad, h: H - pad - ph - 40 - (top + 20 + hh + 24) },
      bodyColor: d.palette.muted,
      bodyMax: 40,
      number: { x: W - pad - 110, y: pad + 20 },
    };
  },
  async quote(d, W, H, c, visual, photo) {
    const pad = Math.round(W * 0.09);
    const avatar = Math.round(W * 0.2);
    const top = pad + 170;
    const hh = Math.round(H * 0.42);
    return {
      layers: [
        fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: d.palette.background }),
        await image(visual, { x: 0, y: 0, w: W, h: H }),
        fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: rgba(d.palette.surface, 0.84) }),
        h(
          "div",
          {
            style: {
              ...box(pad, pad - 20, 300, 220),
              color: d.palette.accent,
              fontFamily: "DM Serif Display",
              fontSize: 260,
              lineHeight: 1,
            },
          },
          "“",
        ),
        await image(
          photo ?? visual,
          { x: pad, y: H - pad - avatar, w: avatar, h: avatar },
          { borderRadius: avatar / 2, border: `6px solid ${d.palette.accent}` },
        ),
        h(
          "div",
          {
            style: {
              ...box(pad + avatar + 32, H - pad - avatar, W - 2 * pad - avatar - 32, avatar),
              alignItems: "center",
              color: d.palette.text,
              fontFamily: "Inter",
              fontWeight: 700,
              fontSize: 34,
            },
          },
          `— ${c.productName.slice(0, 40)}`,
        ),
      ],
      headline: { x: pad, y: top, w: W - 2 * pad, h: hh },
      headlineColor: d.palette.text,
      headlineMax: 120,
      headlineValign: "center",
      body: { x: pad, y: top + hh + 24, w: W - 2 * pad, h: H - pad - avatar - 40 - (top + hh + 24) },
      bodyColor: d.palette.muted,
      bodyMax: 36,
      number: { x: W - pad - 110, y: pad },
    };
  },
};

/** The closing call-to-action slide, drawn in the design's palette and fonts. */
const ctaLayout: LayoutFn = async (d, W, H, c, visual, photo) => {
  const pad = Math.round(W * 0.08);
  const circle = Math.round(W * 0.4);
  const top = pad + 70 + circle + 50;
  const hh = Math.round(H * 0.2);
  const link = (c.linkText ?? "Shop now").slice(0, 48);
  return {
    layers: [
      fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: d.palette.background }),
      await image(visual, { x: 0, y: 0, w: W, h: H }),
      fill({ x: 0, y: 0, w: W, h: H }, { backgroundColor: rgba(d.palette.background, 0.8) }),
      await image(
        photo ?? visual,
        { x: (W - circle) / 2, y: pad + 70, w: circle, h: circle },
        { borderRadius: circle / 2, border: `8px solid ${d.palette.accent}` },
      ),
      h(
        "div",
        {
          style: {
            ...box(pad, pad, W - 2 * pad, 50),
            justifyContent: "center",
            color: d.palette.accent,
            fontFamily: "Inter",
            fontWeight: 800,
            fontSize: 32,
            letterSpacing: 3,
          },
        },
        c.productName.toUpperCase().slice(0, 40),
      ),
    ],
    headline: { x: pad, y: top, w: W - 2 * pad, h: hh },
    headlineColor: d.palette.text,
    headlineMax: 130,
    headlineAlign: "center",
    headlineValign: "center",
    body: { x: pad, y: top + hh + 20, w: W - 2 * pad, h: Math.round(H * 0.1) },
    bodyColor: d.palette.muted,
    bodyMax: 38,
    bodyAlign: "center",
    extras: [
      h(
        "div",
        {
          style: {
            ...box(pad, H - pad - 110, W - 2 * pad, 110),
            justifyContent: "center",
            alignItems: "center",
            borderRadius: 55,
            backgroundColor: d.palette.accent,
            color: d.palette.background,
            fontFamily: "Inter",
            fontWeight: 800,
            fontSize: 38,
          },
        },
        link,
      ),
    ],
    number: { x: W - pad - 110, y: pad - 10 },
  };
};

/** Lays out `req`: the slide's layers bottom to top and the fitted headline. */
async function layout(
  req: SlideRequest,
): Promise<{ layers: Layer[]; bg: string; headline: { box: Rect; fit: FitResult } }> {
  const d = typeof req.design === "string" ? designFor(req.design) : req.design;
  const { width: W, height: H, content: c } = req;
  const fn = c.kind === "cta" ? ctaLayout : LAYOUTS[d.layout];
  const laid = await fn(d, W, H, c, req.visual, req.photo);
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
  return { layers, bg: d.palette.background, headline: { box: laid.headline, fit: headline.fit } };
}

/** Rasterises satori nodes on a transparent `W` x `H` canvas: raw RGBA pixels. */
async function rasteriseRaw(nodes: Node[], W: number, H: number): Promise<Buffer> {
  const tree = h("div", { style: { display: "flex", position: "relative", width: W, height: H } }, ...nodes);
  const svg = await satori(tree as never, { width: W, height: H, fonts: loadFonts() });
  return Buffer.from(
    new Resvg(svg, { fitTo: { mode: "original" }, font: { loadSystemFonts: false } }).render().pixels,
  );
}

/**
 * Composites `layers` in order over a `bg` canvas: consecutive satori nodes become one transparent raster,
 * pictures are placed by sharp; a picture's border is drawn in the raster above it. @returns raw RGBA.
 */
async function compose(layers: Layer[], W: number, H: number, bg: string): Promise<Buffer> {
  const inputs: OverlayOptions[] = [];
  let pending: Node[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    inputs.push({
      input: await rasteriseRaw(pending, W, H),
      raw: { width: W, height: H, channels: 4 },
      left: 0,
      top: 0,
    });
    pending = [];
  };
  for (const layer of layers) {
    if (!layer) continue;
    if ("kind" in layer && layer.kind === "image") {
      await flush();
      const r = layer.rect;
      inputs.push({
        input: await pictureRaw(layer),
        raw: { width: r.w, height: r.h, channels: 4 },
        left: r.x,
        top: r.y,
      });
      if (layer.border)
        pending.push(
          fill(r, {
            border: layer.border,
            borderRadius: layer.radius ?? 0,
            ...(layer.top ? { borderBottomLeftRadius: 0, borderBottomRightRadius: 0 } : {}),
          }),
        );
    } else {
      pending.push(layer as Node);
    }
  }
  await flush();
  return sharp({ create: { width: W, height: H, channels: 4, background: bg } })
    .composite(inputs)
    .raw()
    .toBuffer();
}

/** Rasterises a satori tree to RGBA PNG bytes of `W` x `H` (transparent where nothing is drawn). */
async function rasterise(tree: Node, W: number, H: number): Promise<Buffer> {
  const svg = await satori(tree as never, { width: W, height: H, fonts: loadFonts() });
  return new Resvg(svg, { fitTo: { mode: "original" }, font: { loadSystemFonts: false } }).render().asPng();
}

/**
 * Renders one slide as an sRGB JPEG of exactly `width` x `height` pixels, under 8 MB (quality is lowered
 * until it is).
 * @throws Error when a supplied image cannot be decoded (sharp's error).
 */
export async function renderSlide(req: SlideRequest): Promise<RenderedSlide> {
  const { layers, bg, headline } = await layout(req);
  const raw = await compose(layers, req.width, req.height, bg);
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
  return { bytes, mimeType: "image/jpeg", width: req.width, height: req.height, headline };
}

export interface TextOverlayRequest {
  text: string;
  /** Frame size, pixels. */
  width: number;
  height: number;
  design: Design | string;
  /** Vertical placement of the text band (default `center`). */
  placement?: "top" | "center" | "bottom";
}

/**
 * Renders `text` alone, auto-fitted in the design's headline font on a translucent band, as a PNG with an
 * alpha channel of exactly `width` x `height` pixels (fully transparent outside the band): the overlay the
 * video renderer composites onto frames. Signature kept stable for the video templates.
 */
export async function renderTextOverlay(req: TextOverlayRequest): Promise<Buffer> {
  const d = typeof req.design === "string" ? designFor(req.design) : req.design;
  const W = req.width;
  const H = req.height;
  const pad = Math.round(W * 0.08);
  const bandH = Math.round(H * 0.24);
  const y = {
    top: Math.round(H * 0.1),
    center: Math.round((H - bandH) / 2),
    bottom: Math.round(H * 0.9) - bandH,
  }[req.placement ?? "center"];
  const inner: Rect = { x: pad + 36, y: y + 28, w: W - 2 * pad - 72, h: bandH - 56 };
  const text = d.uppercase ? req.text.toUpperCase() : req.text;
  const fitted = await fittedText(text, inner, d.fonts.headline, d.palette.text, {
    min: 24,
    max: 140,
    lineHeight: 1.1,
    align: "center",
    valign: "center",
  });
  const tree = h(
    "div",
    { style: { display: "flex", position: "relative", width: W, height: H } },
    fill(
      { x: pad, y, w: W - 2 * pad, h: bandH },
      { backgroundColor: rgba(d.palette.background, 0.62), borderRadius: 32 },
    ),
    fitted.node,
  );
  const png = await rasterise(tree, W, H);
  return sharp(png).ensureAlpha().png().toBuffer();
}
