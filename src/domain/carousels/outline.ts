/**
 * The carousel outline: a deterministic slide plan built from the product's own fields (name, brand,
 * description, price, tags, URL). It is saved with the run and read back by `get_carousel_outline`; it is a
 * plan, not a generation job. Product text is data: it is quoted into the plan, never interpreted. The roles
 * follow how much the product has to say (docs/providers.md "AI text"): a product with fewer facts than
 * slides gets question, close-up, benefit, how-to, proof, gift, price and engagement slides instead of
 * repeated facts.
 */
import { localCarouselCopy } from "../../providers/ai-text/local-carousel.ts";
import { type ProductFacts, productFacts } from "../../providers/ai-text/product-facts.ts";
import type { TextSubject } from "../../providers/ai-text/types.ts";
import { fromMinor } from "../products/money.ts";
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
  /** One of SLIDE_ROLES. */
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

/**
 * Slide roles, in the order they appear in a carousel. `feature` slides carry the product's own facts; the
 * others fill a carousel when the product has fewer facts than slides (docs/providers.md "AI text"), never by
 * repeating a fact.
 */
export const SLIDE_ROLES = [
  "hook",
  "question",
  "feature",
  "closeup",
  "benefit",
  "how_to",
  "proof",
  "recap",
  "gift",
  "price",
  "comment",
  "save",
  "share",
  "cta",
] as const;
export type SlideRole = (typeof SLIDE_ROLES)[number];

/** The roles that fill the middle slides, best first: the product's facts, then what helps it sell. */
function candidates(f: ProductFacts): SlideRole[] {
  const features = f.features.map((): SlideRole => "feature");
  const [first = [], second = []] = [features.slice(0, 1), features.slice(1, 2)];
  const recap = f.features.filter((x) => x.headline).length >= 3 ? (["recap"] as const) : [];
  return [
    ...first,
    ...(f.price ? (["price"] as const) : []),
    ...second,
    ...(f.proof.length > 0 ? (["proof"] as const) : []),
    ...(f.howTo.length > 0 ? (["how_to"] as const) : []),
    ...features.slice(2),
    ...(f.benefits.length > 0 ? (["benefit"] as const) : []),
    "question",
    ...recap,
    "closeup",
    "gift",
    "closeup",
    "comment",
    "save",
    "share",
    "closeup",
  ];
}

/**
 * The roles of a `slideCount`-slide carousel about a product with facts `f`: a hook, the best
 * `slideCount - 2` middle roles (see `candidates`) in the order of SLIDE_ROLES, and a closing call to action.
 */
export function planRoles(f: ProductFacts, slideCount: SlideCount): SlideRole[] {
  const middle = candidates(f).slice(0, slideCount - 2);
  const order = (r: SlideRole) => SLIDE_ROLES.indexOf(r);
  return ["hook", ...middle.sort((a, b) => order(a) - order(b)), "cta"];
}

/** The image brief of a slide by role (the product name quoted as data). */
function imagePrompt(role: SlideRole, name: string, copy: { headline: string; body: string }, style: string) {
  const subject = `the product "${name}"`;
  switch (role) {
    case "hook":
      return `Hero image of ${subject}, ${style}`;
    case "feature":
    case "how_to":
      return `Detail shot of ${subject} illustrating: ${copy.body.slice(0, 120)}, ${style}`;
    case "proof":
    case "benefit":
      return `Lifestyle photo of ${subject} in everyday use, ${style}`;
    case "price":
      return `${subject} with a clean price tag, ${style}`;
    case "cta":
      return `Call-to-action card for ${subject}, ${style}`;
    default:
      return `Close-up of ${subject}, ${style}`;
  }
}

/**
 * Builds the plan for `slideCount` slides: roles from `planRoles` and each slide's draft copy written by the
 * local text provider from the same facts (the copy a run keeps if the configured text provider fails).
 */
export function buildOutline(
  p: OutlineProduct,
  designId: string,
  format: string,
  slideCount: SlideCount,
): Outline {
  const subject: TextSubject = {
    kind: "product",
    name: p.name,
    description: p.description ?? undefined,
    brand: p.brand ?? undefined,
    price: p.price_minor !== null && p.currency ? fromMinor(p.price_minor, p.currency) : undefined,
    currency: p.currency ?? undefined,
    tags: p.tags,
  };
  const facts = productFacts(subject);
  const roles = planRoles(facts, slideCount);
  const slides = roles.map((role, i) => ({ position: i + 1, role }));
  const copy = localCarouselCopy({ subject, productUrl: p.product_url ?? undefined, slides });
  const style = `${designId} design, ${format} format`;
  return {
    design_id: designId,
    format,
    slide_count: slideCount,
    slides: slides.map((s, i) => ({
      ...s,
      headline: copy[i]!.headline,
      body: copy[i]!.body,
      image_prompt: imagePrompt(s.role, facts.shortName, copy[i]!, style),
    })),
  };
}
