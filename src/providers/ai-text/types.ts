/**
 * The AI text boundary: caption, hook and hashtag variations, UGC on-screen hooks, carousel slide copy and
 * the caption of a generated post.
 * Every field of a subject is untrusted data (product pages, user captions, briefs): implementations pass
 * it as data, never as instructions (service spec 5.14).
 */

/** What the text is about: the fields of a product, a post's caption, or a free brief. */
export interface TextSubject {
  kind: "product" | "post" | "brief";
  name?: string | undefined;
  description?: string | undefined;
  brand?: string | undefined;
  price?: number | undefined;
  currency?: string | undefined;
  tags?: string[] | undefined;
  caption?: string | undefined;
  brief?: string | undefined;
}

export const TONES = ["friendly", "professional", "playful", "bold", "minimal"] as const;
export type Tone = (typeof TONES)[number];

export interface CaptionRequest {
  subject: TextSubject;
  /** Variations wanted, 1..10. */
  count: number;
  tone: Tone;
  /** Target network, shapes length and hashtag count. */
  network?: string | undefined;
  /** When false, variations carry no hashtags (default true). */
  includeHashtags?: boolean | undefined;
}

export interface CaptionVariation {
  caption: string;
  hook: string;
  hashtags: string[];
}

export interface HookRequest {
  subject: TextSubject;
  /** Hooks wanted, 1..10. */
  count: number;
  tone: Tone;
}

/** One slide of the carousel plan the copy is written for. */
export interface SlidePlan {
  /** 1-based position. */
  position: number;
  /** One of the outline's SLIDE_ROLES (src/domain/carousels/outline.ts): hook, question, feature, closeup,
   * benefit, how_to, proof, recap, gift, price, comment, save, share, cta. */
  role: string;
}

export interface CarouselCopyRequest {
  /** The product's facts and, in `brief`, the request's guidance (untrusted data). */
  subject: TextSubject;
  /** The product's public URL, for the closing slide's link text. */
  productUrl?: string | undefined;
  slides: SlidePlan[];
  /** 0 for the first draft; a regeneration asks for the next variant, which says something else. */
  variant?: number | undefined;
}

/** The words of one slide (lengths bounded by LIMITS.slideHeadline and LIMITS.slideBody). */
export interface SlideCopy {
  headline: string;
  body: string;
}

/** What a generated post's caption is written from (docs/operations.md "Captions of generated posts"). All fields are untrusted data. */
export interface PostCaptionRequest {
  /** The product (name, description, brand, price, currency, tags) and, in `brief`, the request's guidance. */
  subject: TextSubject;
  /** The product's public URL, for the call to action. */
  productUrl?: string | undefined;
  /** The copy of the post's slides or video overlays, in order (may be empty). */
  slides: SlideCopy[];
  tone?: Tone | undefined;
}

/** A text generator. Throws ToolError (`rate_limited`, `internal_error`) with safe messages only. */
export interface AiTextProvider {
  readonly name: "local" | "openai-compatible";
  captions(request: CaptionRequest, signal: AbortSignal): Promise<CaptionVariation[]>;
  ugcHooks(request: HookRequest, signal: AbortSignal): Promise<string[]>;
  /** Headline and body for every slide of `request.slides`, in the same order; slides say different things. */
  carouselCopy(request: CarouselCopyRequest, signal: AbortSignal): Promise<SlideCopy[]>;
  /** One caption ready to post: a hook line, two to four short lines of value, a call to action, and 3 to 8 relevant hashtags; at most LIMITS.caption characters, no control characters other than newlines. */
  postCaption(request: PostCaptionRequest, signal: AbortSignal): Promise<string>;
}

/** Bounds applied to every provider's output (lengths in characters). */
export const LIMITS = {
  caption: 2200,
  hook: 120,
  hashtag: 40,
  hashtags: 15,
  ugcHook: 80,
  slideHeadline: 120,
  slideBody: 220,
} as const;

/** Normalises one hashtag: `#word` with letters, digits and underscores only; undefined if nothing is left. */
export function normaliseHashtag(tag: string): string | undefined {
  const body = tag
    .replace(/^#+/, "")
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}_]/gu, "");
  return body ? `#${body.slice(0, LIMITS.hashtag - 1)}` : undefined;
}
