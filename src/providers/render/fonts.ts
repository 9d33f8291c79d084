/**
 * Bundled fonts for the slide renderer: the `.woff` files the @fontsource packages ship (satori reads WOFF
 * and TTF/OTF, not WOFF2), loaded once from node_modules. No system font and no network is ever used.
 * Families: Inter (sans, 400/700/800), Playfair Display (serif, 400/700), Bebas Neue (display, 400) and
 * DM Serif Display (display serif, 400). Each file covers the Latin subset (U+0000-00FF and common
 * punctuation such as U+2013, U+2019, U+2026).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** A font family the designs may name. */
export type FontFamily = "Inter" | "Playfair Display" | "Bebas Neue" | "DM Serif Display";

/** One font face in satori's `fonts` option shape. */
export interface FontFace {
  name: FontFamily;
  data: Buffer;
  weight: 400 | 700 | 800;
  style: "normal";
}

const FILES: Array<{ name: FontFamily; pkg: string; file: string; weight: FontFace["weight"] }> = [
  { name: "Inter", pkg: "@fontsource/inter", file: "inter-latin-400-normal.woff", weight: 400 },
  { name: "Inter", pkg: "@fontsource/inter", file: "inter-latin-700-normal.woff", weight: 700 },
  { name: "Inter", pkg: "@fontsource/inter", file: "inter-latin-800-normal.woff", weight: 800 },
  {
    name: "Playfair Display",
    pkg: "@fontsource/playfair-display",
    file: "playfair-display-latin-400-normal.woff",
    weight: 400,
  },
  {
    name: "Playfair Display",
    pkg: "@fontsource/playfair-display",
    file: "playfair-display-latin-700-normal.woff",
    weight: 700,
  },
  {
    name: "Bebas Neue",
    pkg: "@fontsource/bebas-neue",
    file: "bebas-neue-latin-400-normal.woff",
    weight: 400,
  },
  {
    name: "DM Serif Display",
    pkg: "@fontsource/dm-serif-display",
    file: "dm-serif-display-latin-400-normal.woff",
    weight: 400,
  },
];

let cache: FontFace[] | undefined;

/**
 * Every bundled face, read from the installed @fontsource packages on first use.
 * @throws Error naming the package when a font file is missing (run `npm install`).
 */
export function loadFonts(): FontFace[] {
  if (cache) return cache;
  const require = createRequire(import.meta.url);
  cache = FILES.map((f) => {
    let dir: string;
    try {
      dir = dirname(require.resolve(`${f.pkg}/package.json`));
    } catch {
      throw new Error(`font package ${f.pkg} is not installed; run npm install`);
    }
    return {
      name: f.name,
      weight: f.weight,
      style: "normal",
      data: readFileSync(join(dir, "files", f.file)),
    };
  });
  return cache;
}
