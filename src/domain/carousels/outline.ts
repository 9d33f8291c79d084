/**
 * The carousel outline: a deterministic slide plan built from the product's own fields (name, brand,
 * description, price, tags, URL). It is saved with the run and read back by `get_carousel_outline`; it is a
 * plan, not a generation job. Product text is data: it is quoted into the plan, never interpreted.
 */
import type { SlideCount } from "./formats.ts";

export interface OutlineProduct {
  name: string;
  description: string | null;
  brand: string | null;
  price_minor: number | null;
  currency: string | null;
  product_url: string | null;
  tags: string[];
}

export interface OutlineSlide {
  /** 1-based position. */
  position: number;
  /** hook | feature | price | proof | cta */
  role: string;
  headline: string;
  body: string;
  /** The image brief for the image provider (stored sealed with the slide). */
  image_prompt: string;
}

export interface Outline {
  design_id: string;
  format: string;
  slide_count: SlideCount;
  slides: OutlineSlide[];
}

const clip = (s: string, n: number) => {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > n ? `${t.slice(0, n - 1).trimEnd()}…` : t;
};

/** Splits a description into short sentences usable as feature points. */
function points(p: OutlineProduct): string[] {
  const sentences = (p.description ?? "")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 3);
  return [...sentences, ...p.tags.map((t) => `Made for ${t}`)];
}

function formatPrice(minor: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(minor / 100);
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency}`;
  }
}

/**
 * Builds the plan for `slideCount` slides (>= 2): a hook, feature slides, a price slide when the product
 * has a price and there is room, and a closing call to action.
 */
export function buildOutline(
  p: OutlineProduct,
  designId: string,
  format: string,
  slideCount: SlideCount,
): Outline {
  const name = clip(p.name, 60);
  const feats = points(p);
  const slides: OutlineSlide[] = [];
  const style = `${designId} design, ${format} format`;
  slides.push({
    position: 1,
    role: "hook",
    headline: clip(p.brand ? `${name} by ${p.brand}` : name, 80),
    body: clip(feats[0] ?? `Meet ${name}.`, 160),
    image_prompt: `Hero image of the product "${name}", ${style}`,
  });
  const hasPrice = p.price_minor !== null && p.currency !== null && slideCount >= 4;
  const middle = slideCount - 2 - (hasPrice ? 1 : 0);
  for (let i = 0; i < middle; i++) {
    const point = feats[i + 1] ?? feats[i % Math.max(1, feats.length)] ?? `Why people choose ${name}`;
    slides.push({
      position: slides.length + 1,
      role: i === middle - 1 && middle > 2 ? "proof" : "feature",
      headline: clip(point.split(/[,.;:]/)[0] ?? point, 60),
      body: clip(point, 160),
      image_prompt: `Detail shot of "${name}" illustrating: ${clip(point, 120)}, ${style}`,
    });
  }
  if (hasPrice) {
    slides.push({
      position: slides.length + 1,
      role: "price",
      headline: formatPrice(p.price_minor!, p.currency!),
      body: clip(`${name}: everything above for one price.`, 160),
      image_prompt: `Product "${name}" with a clean price tag, ${style}`,
    });
  }
  slides.push({
    position: slides.length + 1,
    role: "cta",
    headline: "Get yours today",
    body: clip(p.product_url ? `Shop ${name} at ${p.product_url}` : `Shop ${name} now.`, 160),
    image_prompt: `Call-to-action card for "${name}", ${style}`,
  });
  return { design_id: designId, format, slide_count: slideCount, slides };
}
