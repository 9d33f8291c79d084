/**
 * Text overlays for videos (README "Media stack"): the hook text laid out with satori (flexbox -> SVG) and
 * rasterised with @resvg/resvg-js to a PNG of the text box only (its rounded corners transparent), with the
 * box's place in the frame, which ffmpeg composites with its `overlay=x:y` filter (no drawtext, no
 * fontconfig, no system fonts). A box-sized layer instead of a full-frame one keeps about 50 MB of pixmap out
 * of the node process and a 1080x1920 alpha layer per frame out of ffmpeg's graph (bench/README.md). Fonts are the bundled
 * @fontsource files (satori reads woff/ttf/otf, not woff2): Bebas Neue for the hook, Inter for the small
 * caption line.
 *
 * The font size shrinks until the text fits its box (words wrap; a word never breaks across lines unless
 * it alone is wider than the box), between `MAX_FONT_PX` and `MIN_FONT_PX`.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";

const require = createRequire(import.meta.url);

type Font = { name: string; data: Buffer; weight: 400 | 800; style: "normal" };
let fonts: Promise<Font[]> | undefined;

/** The bundled fonts, read once per process. */
function loadFonts(): Promise<Font[]> {
  fonts ??= Promise.all([
    readFile(require.resolve("@fontsource/bebas-neue/files/bebas-neue-latin-400-normal.woff")),
    readFile(require.resolve("@fontsource/inter/files/inter-latin-800-normal.woff")),
  ]).then(([bebas, inter]) => [
    { name: "Bebas Neue", data: bebas, weight: 400, style: "normal" },
    { name: "Inter", data: inter, weight: 800, style: "normal" },
  ]);
  return fonts;
}

/** Largest and smallest hook font size, pixels. */
export const MAX_FONT_PX = 150;
export const MIN_FONT_PX = 44;

export interface OverlayRequest {
  /** The hook text (data, never logged). */
  text: string;
  /** Optional small line under the hook (the product name). */
  caption?: string | undefined;
  /** Frame size, pixels (the box is placed inside it). */
  width: number;
  height: number;
  /** Where the text box sits vertically. */
  position: "top" | "center" | "bottom";
}

export interface Overlay {
  /** PNG bytes, RGBA: the text box, `width` x `height` pixels, transparent in its rounded corners. */
  png: Buffer;
  /** The box's top-left corner in the frame, pixels (even, so 4:2:0 chroma lines up). */
  x: number;
  y: number;
  /** The PNG's size, pixels (even). */
  width: number;
  height: number;
  /** The hook font size the text was fitted at, pixels. */
  fontSize: number;
}

/** The box's padding around the text, pixels; satori adds it to the box's width (content-box sizing). */
const BOX_PADDING_X = 44;
const BOX_PADDING_Y = 36;

type Node = { type: string; props: { style?: Record<string, unknown>; children?: unknown } };

function textBox(req: OverlayRequest, fontSize: number, boxWidth: number): Node {
  const children: Node[] = [
    {
      type: "div",
      props: {
        style: {
          display: "flex",
          fontFamily: "Bebas Neue",
          fontSize,
          lineHeight: 1.05,
          color: "#ffffff",
          textAlign: "center",
          justifyContent: "center",
          wordBreak: "break-word",
        },
        children: req.text,
      },
    },
  ];
  if (req.caption)
    children.push({
      type: "div",
      props: {
        style: {
          display: "flex",
          marginTop: 18,
          fontFamily: "Inter",
          fontWeight: 800,
          fontSize: 34,
          color: "#ffd23f",
          textAlign: "center",
          justifyContent: "center",
        },
        children: req.caption,
      },
    });
  return column(
    {
      width: boxWidth,
      padding: `${BOX_PADDING_Y}px ${BOX_PADDING_X}px`,
      borderRadius: 28,
      backgroundColor: "rgba(10, 10, 14, 0.62)",
    },
    children,
  );
}

/** A flex column of `children`, centred across, with `style` added. */
function column(style: Record<string, unknown>, children: Node[]): Node {
  return {
    type: "div",
    props: { style: { display: "flex", flexDirection: "column", alignItems: "center", ...style }, children },
  };
}

/** Height in pixels satori gives the box at `fontSize` (its SVG height when only the width is fixed). */
async function measuredHeight(req: OverlayRequest, fontSize: number, boxWidth: number, f: Font[]) {
  const svg = await satori(textBox(req, fontSize, boxWidth) as never, {
    width: boxWidth + 2 * BOX_PADDING_X,
    fonts: f,
  });
  const m = /height="([0-9.]+)"/.exec(svg);
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}

/**
 * Renders the hook overlay: a PNG of `width` x `height` pixels, transparent except for a rounded dark box
 * holding the hook (auto-fitted into 86% of the width and 30% of the height) and the optional caption.
 * @throws Error when satori or resvg fail (for example an empty text).
 */
export async function renderHookOverlay(req: OverlayRequest): Promise<Overlay> {
  const text = req.text.trim();
  if (!text) throw new Error("overlay text is empty");
  const f = await loadFonts();
  // The text's width (86% of the frame); the box adds its padding on both sides.
  const boxWidth = even(req.width * 0.86);
  const maxHeight = Math.round(req.height * 0.3);
  // Binary search over whole pixels for the largest size whose box fits maxHeight.
  let lo = MIN_FONT_PX;
  let hi = MAX_FONT_PX;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if ((await measuredHeight({ ...req, text }, mid, boxWidth, f)) <= maxHeight) lo = mid;
    else hi = mid - 1;
  }
  const fontSize = lo;
  const box = textBox({ ...req, text }, fontSize, boxWidth);
  const outerWidth = boxWidth + 2 * BOX_PADDING_X;
  const boxHeight = 2 * Math.ceil((await measuredHeight({ ...req, text }, fontSize, boxWidth, f)) / 2);
  const svg = await satori(box as never, { width: outerWidth, height: boxHeight, fonts: f });
  const png = new Resvg(svg, {
    fitTo: { mode: "original" },
    background: "rgba(0,0,0,0)",
    // satori drew the text as paths: no font is read (system fonts would cost memory and time).
    font: { loadSystemFonts: false },
  })
    .render()
    .asPng();
  // Where the box sits: centred across; at the top or bottom 12% of the height in from the edge, or centred.
  const margin = Math.round(req.height * 0.12);
  const top = { top: margin, center: (req.height - boxHeight) / 2, bottom: req.height - margin - boxHeight }[
    req.position
  ];
  return {
    png: Buffer.from(png),
    x: evenDown(Math.max(0, (req.width - outerWidth) / 2)),
    y: evenDown(Math.max(0, top)),
    width: outerWidth,
    height: boxHeight,
    fontSize,
  };
}

/** `n` rounded to the nearest even integer. */
const even = (n: number) => 2 * Math.round(n / 2);
/** `n` rounded down to an even integer. */
const evenDown = (n: number) => 2 * Math.floor(n / 2);
