/**
 * Where each design puts a slide's parts (service spec 1.7; ./designs.ts names the layout of each design):
 * one function per layout for the hook and content slides, and `ctaLayout` for the closing slide of every
 * design. A layout returns its layers bottom to top (background, the generated visual, the product photo,
 * decorations) and the boxes the renderer (./slide.ts) fits the headline and body into. Every layout shows
 * the product photo on the hook slide and on its content slides (`productImage`: cover-fitted or framed,
 * never distorted); the full-bleed layout shows the photo across the hook's upper part and frames it on
 * content slides.
 */
import type { Design } from "./designs.ts";
import { fill, image, label, type Layer, pill, productImage, type Rect, rgba } from "./layers.ts";

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

/** A laid-out slide: its layers and the text boxes (pixels). */
export interface Laid {
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

/** Lays out slide `c` of design `d` on a `W` x `H` canvas (pixels). */
export type LayoutFn = (
  d: Design,
  W: number,
  H: number,
  c: SlideContent,
  visual?: Buffer,
  photo?: Buffer,
) => Laid;

const two = (n: number) => String(n).padStart(2, "0");
const whole = (W: number, H: number): Rect => ({ x: 0, y: 0, w: W, h: H });

/** The design's background colour under the slide's visual (at `opacity`), optionally veiled by `veil`. */
const backdrop = (d: Design, W: number, H: number, visual?: Buffer, opacity?: number, veil?: string) => [
  fill(whole(W, H), { backgroundColor: d.palette.background }),
  image(visual, whole(W, H), opacity === undefined ? {} : { opacity }),
  veil ? fill(whole(W, H), { backgroundColor: veil }) : null,
];

/** The headline and body boxes stacked from `top` (headline `hh` high, body down to `bottom`), `gap` apart. */
const stacked = (x: number, w: number, top: number, hh: number, gap: number, bottom: number) => ({
  headline: { x, y: top, w, h: hh },
  body: { x, y: top + hh + gap, w, h: bottom - (top + hh + gap) },
});

/**
 * A headline height for a text column from `top` to `bottom` (body below it, `gap` apart): `max`, but at most
 * 60% of the column, so that a short (square) slide keeps room for its body.
 */
const headlineHeight = (top: number, bottom: number, gap: number, max: number) =>
  Math.round(Math.min(max, (bottom - top - gap) * 0.6));

/** The common text settings: headline in the text colour, body in the muted colour. */
const colours = (d: Design, headlineMax: number, bodyMax: number) => ({
  headlineColor: d.palette.text,
  headlineMax,
  bodyColor: d.palette.muted,
  bodyMax,
});

/** The hook and content layouts, by layout name. */
export const LAYOUTS: Record<Design["layout"], LayoutFn> = {
  "full-bleed"(d, W, H, c, visual, photo) {
    const pad = Math.round(W * 0.074);
    const hook = c.kind === "hook" && photo !== undefined;
    // The hook bleeds the product photo: the text moves down so the product shows above it.
    const top = Math.round(H * (hook ? 0.6 : 0.4));
    const hh = Math.round(H * (hook ? 0.2 : 0.32));
    const badgeTop = pad + 70;
    const badgeH = top - 60 - badgeTop;
    const badgeW = Math.round(Math.min(W * 0.4, badgeH * 0.85));
    return {
      layers: [
        fill(whole(W, H), { backgroundColor: d.palette.background }),
        hook ? productImage(photo, { x: 0, y: 0, w: W, h: top - 20 }) : image(visual, whole(W, H)),
        fill(whole(W, H), {
          backgroundImage: `linear-gradient(180deg, ${(hook
            ? [
                [0.35, 0],
                [0, 10],
                [0, 40],
                [1, 57],
                [1, 100],
              ]
            : [
                [0.1, 0],
                [0.78, 45],
                [0.96, 100],
              ]
          )
            .map(([a, at]) => `${rgba(d.palette.background, a!)} ${at}%`)
            .join(", ")})`,
        }),
        hook
          ? null
          : productImage(
              photo,
              { x: W - pad - badgeW, y: badgeTop, w: badgeW, h: badgeH },
              { borderRadius: 24, border: `5px solid ${d.palette.accent}` },
            ),
        fill({ x: pad, y: top - 36, w: 140, h: 12 }, { backgroundColor: d.palette.accent }),
      ],
      ...stacked(pad, W - 2 * pad, top, hh, 28, H - pad - 40),
      ...colours(d, 190, 44),
      headlineValign: "end",
      extras: [pill(c.productName.slice(0, 40), pad, pad, d, 26)],
      number: { x: W - pad - 110, y: pad },
    };
  },
  "photo-card"(d, W, H, _c, visual, photo) {
    const pad = Math.round(W * 0.065);
    const card: Rect = { x: pad, y: pad, w: W - 2 * pad, h: H - 2 * pad };
    const photoH = Math.round(card.h * 0.56);
    const inner = 48;
    const hh = Math.round((card.h - photoH) * 0.46);
    return {
      layers: [
        ...backdrop(d, W, H, visual),
        // A flat offset shadow: resvg's blur filter costs seconds on a full-size canvas.
        fill(
          { ...card, x: card.x + 10, y: card.y + 16 },
          { backgroundColor: "rgba(0,0,0,0.22)", borderRadius: 40 },
        ),
        fill(card, { backgroundColor: d.palette.surface, borderRadius: 36 }),
        productImage(
          photo ?? visual,
          { x: card.x, y: card.y, w: card.w, h: photoH },
          { borderRadius: 36, top: true },
        ),
        fill({ x: card.x, y: card.y + photoH, w: card.w, h: 10 }, { backgroundColor: d.palette.accent }),
      ],
      ...stacked(card.x + inner, card.w - 2 * inner, card.y + photoH + 36, hh, 18, card.y + card.h - inner),
      ...colours(d, 110, 38),
      number: { x: card.x + card.w - 140, y: card.y + 28 },
    };
  },
  split(d, W, H, c, visual, photo) {
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
        fill(whole(W, H), { backgroundColor: d.palette.background }),
        image(visual, panel, { opacity: 0.16 }),
        productImage(photo ?? visual, img),
        fill(portrait ? { x: 0, y: img.h - 6, w: W, h: 12 } : { x: img.w - 6, y: 0, w: 12, h: H }, {
          backgroundColor: d.palette.accent,
        }),
        label(
          { x: panel.x + p, y: panel.y + p, w: 400, h: 40 },
          `${two(c.position)} / ${c.productName.slice(0, 24)}`,
          d.palette.accent,
          ["Inter", 28, 700],
        ),
      ],
      ...stacked(panel.x + p, panel.w - 2 * p, panel.y + p + 60, hh, 24, panel.y + panel.h - p - 30),
      ...colours(d, 120, 40),
      number: { x: W - pad - 110, y: pad },
    };
  },
  editorial(d, W, H, c, visual, photo) {
    const pad = Math.round(W * 0.083);
    const photoRect: Rect = { x: pad, y: Math.round(H * 0.6), w: W - 2 * pad, h: Math.round(H * 0.4) - pad };
    const top = pad + 96;
    return {
      layers: [
        ...backdrop(d, W, H, visual, 0.1),
        label(
          { x: pad, y: pad, w: W - 2 * pad, h: 44 },
          `NO. ${two(c.position)} — ${c.productName.toUpperCase().slice(0, 36)}`,
          d.palette.accent,
          ["Inter", 26, 700],
          { letterSpacing: 4 },
        ),
        fill({ x: pad, y: pad + 60, w: W - 2 * pad, h: 3 }, { backgroundColor: d.palette.text }),
        fill(
          { x: photoRect.x - 14, y: photoRect.y - 14, w: photoRect.w + 28, h: photoRect.h + 28 },
          { border: `3px solid ${d.palette.text}` },
        ),
        productImage(photo ?? visual, photoRect),
      ],
      ...stacked(pad, W - 2 * pad, top, Math.round(H * 0.27), 20, photoRect.y - 40),
      ...colours(d, 120, 40),
      number: { x: W - pad - 110, y: H - pad + 12 - 52 },
    };
  },
  numbered(d, W, H, c, visual, photo) {
    const pad = Math.round(W * 0.074);
    const numSize = Math.round(W * 0.22);
    const top = pad + numSize + 20;
    const ph = Math.round(W * 0.3);
    return {
      layers: [
        ...backdrop(d, W, H, visual, undefined, rgba(d.palette.background, 0.86)),
        label(
          { x: pad, y: pad, w: W - 2 * pad, h: numSize },
          two(c.position),
          d.palette.accent,
          ["Bebas Neue", numSize],
          { lineHeight: 1 },
        ),
        fill({ x: pad, y: top - 12, w: W - 2 * pad, h: 4 }, { backgroundColor: d.palette.accent }),
        productImage(
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
      ...stacked(
        pad,
        W - 2 * pad,
        top + 20,
        headlineHeight(top + 20, H - pad - ph - 40, 24, H * 0.24),
        24,
        H - pad - ph - 40,
      ),
      ...colours(d, 110, 40),
      number: { x: W - pad - 110, y: pad + 20 },
    };
  },
  quote(d, W, H, c, visual, photo) {
    const pad = Math.round(W * 0.09);
    const avatar = Math.round(W * 0.2);
    const top = pad + 170;
    return {
      layers: [
        ...backdrop(d, W, H, visual, undefined, rgba(d.palette.surface, 0.84)),
        label({ x: pad, y: pad - 20, w: 300, h: 220 }, "“", d.palette.accent, ["DM Serif Display", 260], {
          lineHeight: 1,
        }),
        productImage(
          photo ?? visual,
          { x: pad, y: H - pad - avatar, w: avatar, h: avatar },
          { borderRadius: avatar / 2, border: `6px solid ${d.palette.accent}` },
        ),
        label(
          { x: pad + avatar + 32, y: H - pad - avatar, w: W - 2 * pad - avatar - 32, h: avatar },
          `— ${c.productName.slice(0, 40)}`,
          d.palette.text,
          ["Inter", 34, 700],
          { alignItems: "center" },
        ),
      ],
      ...stacked(
        pad,
        W - 2 * pad,
        top,
        headlineHeight(top, H - pad - avatar - 40, 24, H * 0.42),
        24,
        H - pad - avatar - 40,
      ),
      ...colours(d, 120, 36),
      headlineValign: "center",
      number: { x: W - pad - 110, y: pad },
    };
  },
};

/** The closing call-to-action slide, drawn in the design's palette and fonts, the product photo framed. */
export const ctaLayout: LayoutFn = (d, W, H, c, visual, photo) => {
  const pad = Math.round(W * 0.08);
  // The photo circle shrinks on square slides so that the body keeps its room above the button.
  const circle = Math.round(Math.min(W * 0.4, H * 0.3));
  const top = pad + 70 + circle + 50;
  const button = H - pad - 110;
  const hh = Math.round(H * 0.2);
  const link = (c.linkText ?? "Shop now").slice(0, 48);
  const centred = { justifyContent: "center", letterSpacing: 3 };
  return {
    layers: [
      ...backdrop(d, W, H, visual, undefined, rgba(d.palette.background, 0.8)),
      productImage(
        photo ?? visual,
        { x: (W - circle) / 2, y: pad + 70, w: circle, h: circle },
        { borderRadius: circle / 2, border: `8px solid ${d.palette.accent}` },
      ),
      label(
        { x: pad, y: pad, w: W - 2 * pad, h: 50 },
        c.productName.toUpperCase().slice(0, 40),
        d.palette.accent,
        ["Inter", 32, 800],
        centred,
      ),
    ],
    headline: { x: pad, y: top, w: W - 2 * pad, h: hh },
    ...colours(d, 130, 38),
    headlineAlign: "center",
    headlineValign: "center",
    body: {
      x: pad,
      y: top + hh + 20,
      w: W - 2 * pad,
      h: Math.min(Math.round(H * 0.1), button - 20 - (top + hh + 20)),
    },
    bodyAlign: "center",
    extras: [
      label(
        { x: pad, y: H - pad - 110, w: W - 2 * pad, h: 110 },
        link,
        d.palette.background,
        ["Inter", 38, 800],
        {
          justifyContent: "center",
          alignItems: "center",
          borderRadius: 55,
          backgroundColor: d.palette.accent,
        },
      ),
    ],
    number: { x: W - pad - 110, y: pad - 10 },
  };
};
