/**
 * Headline auto-fit: the largest font size (pixels) at which a text, wrapped on words by satori's layout,
 * fits a box. Each candidate size is laid out by satori with the box's width and an automatic height; the
 * laid-out height must not exceed the box height and the rendered glyph outlines (resvg's bounding box of
 * the SVG paths, which includes any overflow of a word longer than the line) must stay inside the box's
 * width. Sizes are binary-searched between `minSize` and `maxSize`.
 */
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";
import type { FontChoice } from "./designs.ts";
import { loadFonts } from "./fonts.ts";

export interface FitRequest {
  text: string;
  /** Box size in pixels. */
  width: number;
  height: number;
  font: FontChoice;
  /** Line height as a multiple of the font size (default 1.1). */
  lineHeight?: number;
  /** Bounds of the search, pixels (defaults 28 and 160). */
  minSize?: number;
  maxSize?: number;
  /** Letter spacing, pixels (default 0). */
  letterSpacing?: number;
}

export interface TextMeasure {
  /** Laid-out block height, pixels. */
  height: number;
  /** Ink extents of the glyphs, pixels from the box's left edge. */
  inkLeft: number;
  inkRight: number;
}

export interface FitResult {
  fontSize: number;
  measure: TextMeasure;
  /** False only when even `minSize` overflows (the caller shortens the text). */
  fits: boolean;
}

/** The satori style of a text block at `fontSize`; shared by measurement and the slide so both agree. */
export function textStyle(req: FitRequest, fontSize: number): Record<string, unknown> {
  return {
    display: "flex",
    fontFamily: req.font.family,
    fontWeight: req.font.weight,
    fontSize,
    lineHeight: req.lineHeight ?? 1.1,
    letterSpacing: req.letterSpacing ?? 0,
  };
}

/** Lays out `req.text` at `fontSize` in the box's width and measures it. */
export async function measureText(req: FitRequest, fontSize: number): Promise<TextMeasure> {
  let height = 0;
  const svg = await satori(
    {
      type: "div",
      props: { style: { ...textStyle(req, fontSize), width: req.width }, children: req.text },
    } as never,
    { width: req.width, fonts: loadFonts() },
  );
  const m = /height="([\d.]+)"/.exec(svg);
  height = m ? Number(m[1]) : Number.POSITIVE_INFINITY;
  // No system fonts: satori already turned the text into paths (and scanning them costs ~25 ms a call).
  const box = new Resvg(svg, { font: { loadSystemFonts: false } }).getBBox();
  return { height, inkLeft: box ? box.x : 0, inkRight: box ? box.x + box.width : 0 };
}

/**
 * True when the block fits: its laid-out height within the box, and its glyph outlines within the box's
 * width up to a side bearing (3% of the font size: letters such as "V" or "W" overhang their advance by a
 * pixel or two, which stays inside the slide's padding and is not clipping).
 */
function fitsBox(req: FitRequest, m: TextMeasure, fontSize: number): boolean {
  const bearing = Math.max(0.5, fontSize * 0.03);
  return m.height <= req.height && m.inkLeft >= -bearing && m.inkRight <= req.width + bearing;
}

/**
 * The largest integer font size in [minSize, maxSize] at which `req.text` fits its box.
 * @returns `fits: false` with `minSize` when nothing fits.
 */
export async function fitText(req: FitRequest): Promise<FitResult> {
  let lo = req.minSize ?? 28;
  let hi = req.maxSize ?? 160;
  if (!req.text.trim()) return { fontSize: hi, measure: { height: 0, inkLeft: 0, inkRight: 0 }, fits: true };
  const atMin = await measureText(req, lo);
  if (!fitsBox(req, atMin, lo)) return { fontSize: lo, measure: atMin, fits: false };
  let best = { fontSize: lo, measure: atMin };
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const m = await measureText(req, mid);
    if (fitsBox(req, m, mid)) {
      best = { fontSize: mid, measure: m };
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return { ...best, fits: true };
}
