/**
 * The carousel design systems (service spec 1.7): each declares its palette, fonts and layout. A layout is a
 * different arrangement of the same slide parts (visual, product photo, headline, body, slide number), not a
 * recolour. The ids match the `carousel_designs` catalog rows (migrations), which hold availability
 * (formats, slide counts, active); this module holds how a design looks.
 */
import type { FontFamily } from "./fonts.ts";

/** How a slide's parts are arranged. */
export type Layout = "full-bleed" | "photo-card" | "split" | "editorial" | "numbered" | "quote";

/** Colours as `#rrggbb`. */
export interface Palette {
  background: string;
  surface: string;
  text: string;
  accent: string;
  muted: string;
}

export interface FontChoice {
  family: FontFamily;
  weight: 400 | 700 | 800;
}

export interface Design {
  id: string;
  name: string;
  layout: Layout;
  palette: Palette;
  fonts: { headline: FontChoice; body: FontChoice };
  /** Headline case transform (display faces read best in capitals). */
  uppercase: boolean;
  /**
   * Whether the accent colour comes from the product photo when the slide has one (its dominant saturated
   * colour, kept at WCAG AA contrast against the background: ../render/photo-accent.ts); the editorial and
   * quote designs keep their own palettes.
   */
  accentFromPhoto: boolean;
}

/** Every design, by id. */
export const DESIGNS: Record<string, Design> = {
  "bold-minimal": {
    id: "bold-minimal",
    name: "Bold minimal",
    layout: "full-bleed",
    palette: {
      background: "#101820",
      surface: "#1c2a36",
      text: "#ffffff",
      accent: "#fee715",
      muted: "#c9d3dc",
    },
    fonts: { headline: { family: "Bebas Neue", weight: 400 }, body: { family: "Inter", weight: 400 } },
    uppercase: true,
    accentFromPhoto: true,
  },
  "product-showcase": {
    id: "product-showcase",
    name: "Product showcase",
    layout: "photo-card",
    palette: {
      background: "#f3efe7",
      surface: "#ffffff",
      text: "#1d1d1f",
      accent: "#e4572e",
      muted: "#5f5a54",
    },
    fonts: { headline: { family: "Inter", weight: 800 }, body: { family: "Inter", weight: 400 } },
    uppercase: false,
    accentFromPhoto: true,
  },
  "story-steps": {
    id: "story-steps",
    name: "Story steps",
    layout: "numbered",
    palette: {
      background: "#0b3d3a",
      surface: "#12564f",
      text: "#f4f1de",
      accent: "#f2cc8f",
      muted: "#b8d8d3",
    },
    fonts: { headline: { family: "Inter", weight: 700 }, body: { family: "Inter", weight: 400 } },
    uppercase: false,
    accentFromPhoto: true,
  },
  "split-frame": {
    id: "split-frame",
    name: "Split frame",
    layout: "split",
    palette: {
      background: "#fafafa",
      surface: "#eaeaea",
      text: "#111111",
      accent: "#3a86ff",
      muted: "#4a4a4a",
    },
    fonts: { headline: { family: "Inter", weight: 800 }, body: { family: "Inter", weight: 400 } },
    uppercase: false,
    accentFromPhoto: true,
  },
  "editorial-serif": {
    id: "editorial-serif",
    name: "Editorial serif",
    layout: "editorial",
    palette: {
      background: "#f7f3ea",
      surface: "#ece4d3",
      text: "#2b2118",
      accent: "#8c3b2e",
      muted: "#6b5d4f",
    },
    fonts: {
      headline: { family: "Playfair Display", weight: 700 },
      body: { family: "Playfair Display", weight: 400 },
    },
    uppercase: false,
    accentFromPhoto: false,
  },
  "quote-card": {
    id: "quote-card",
    name: "Quote card",
    layout: "quote",
    palette: {
      background: "#2d1e2f",
      surface: "#3f2a42",
      text: "#fdf0d5",
      accent: "#ff8fab",
      muted: "#d8c3d9",
    },
    fonts: { headline: { family: "DM Serif Display", weight: 400 }, body: { family: "Inter", weight: 400 } },
    uppercase: false,
    accentFromPhoto: false,
  },
};

/** The design `id`, or the first design when the id is unknown to the renderer (e.g. a retired design). */
export function designFor(id: string): Design {
  return DESIGNS[id] ?? DESIGNS["bold-minimal"]!;
}
