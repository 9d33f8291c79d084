/**
 * A design's accent colour taken from the product photo (docs/slides.md "Slides"): the photo's dominant
 * saturated colour, read from a 48 x 48 thumbnail decoded with boundedSharp (./layers.ts; pixels binned by
 * hue; greys, near-blacks and near-whites skipped, so a white studio backdrop does not win), then lightened
 * or darkened until it reaches WCAG 2.1 AA contrast (4.5:1, https://www.w3.org/TR/WCAG21/#contrast-minimum)
 * against the design's background: the accent is drawn as text on the background (labels, numbers) and the
 * background colour as text on the accent (the CTA button), the same pair of colours.
 */
import type { Palette } from "./designs.ts";
import { thumbnailRgb } from "./layers.ts";

type RGB = [number, number, number];

const toRgb = (hex: string): RGB => {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};
const toHex = (c: RGB) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;

/** WCAG relative luminance of `#rrggbb`, 0..1. */
export function luminance(hex: string): number {
  const [r, g, b] = toRgb(hex).map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as RGB;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two `#rrggbb` colours, 1..21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The contrast every accent keeps against its background (WCAG AA, normal text). */
export const MIN_ACCENT_CONTRAST = 4.5;

/** Share of the thumbnail's pixels a hue must hold to be the photo's colour. */
const MIN_SHARE = 0.04;

/** The photo's dominant saturated colour as `#rrggbb`, or undefined for a grey or colourless photo. */
export async function dominantColour(photo: Buffer): Promise<string | undefined> {
  const px = await thumbnailRgb(photo, 48, "cover");
  const bins = Array.from({ length: 24 }, () => ({ n: 0, r: 0, g: 0, b: 0 }));
  for (let i = 0; i < px.length; i += 3) {
    const [r, g, b] = [px[i]!, px[i + 1]!, px[i + 2]!];
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    if (max < 50 || max === 0 || (max - min) / max < 0.35 || min > 225) continue;
    const d = max - min;
    const hue = max === r ? ((g - b) / d + 6) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    const bin = bins[Math.floor(hue * 4) % 24]!;
    bin.n += 1;
    bin.r += r;
    bin.g += g;
    bin.b += b;
  }
  const best = bins.reduce((a, b) => (b.n > a.n ? b : a));
  if (best.n < MIN_SHARE * (px.length / 3)) return undefined;
  return toHex([best.r / best.n, best.g / best.n, best.b / best.n]);
}

/**
 * `colour` moved toward white (on a dark background) or black (on a light one) in 5% steps until its
 * contrast with `background` is at least MIN_ACCENT_CONTRAST.
 */
export function readableOn(colour: string, background: string): string {
  const towards: RGB = luminance(background) < 0.18 ? [255, 255, 255] : [0, 0, 0];
  const from = toRgb(colour);
  for (let t = 0; t <= 1; t += 0.05) {
    const mixed = toHex(from.map((v, i) => v + (towards[i]! - v) * t) as RGB);
    if (contrastRatio(mixed, background) >= MIN_ACCENT_CONTRAST) return mixed;
  }
  return toHex(towards);
}

/** `palette` with its accent taken from `photo` (unchanged when the photo has no dominant colour). */
export async function paletteFromPhoto(palette: Palette, photo: Buffer): Promise<Palette> {
  const colour = await dominantColour(photo);
  return colour ? { ...palette, accent: readableOn(colour, palette.background) } : palette;
}
