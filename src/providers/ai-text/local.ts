/**
 * The `local` AI text provider (default): deterministic and offline. Variations are built from the
 * subject's fields (name, brand, description's first sentence, price, tags) and fixed templates per tone;
 * the same request always gives the same text. Carousel copy: local-carousel.ts; post captions:
 * local-caption.ts. Documented in docs/providers.md.
 */
import { localPostCaption } from "./local-caption.ts";
import { localCarouselCopy } from "./local-carousel.ts";
import { CALLS, HOOKS, priceText } from "./local-words.ts";
import { sentences, squash, unperiod } from "./sentences.ts";
import {
  type AiTextProvider,
  type CarouselCopyRequest,
  type CaptionRequest,
  type CaptionVariation,
  type HookRequest,
  LIMITS,
  normaliseHashtag,
  type PostCaptionRequest,
  type SlideCopy,
  type TextSubject,
  type Tone,
} from "./types.ts";

const UGC: Record<Tone, string[]> = {
  friendly: ["I finally tried {name}", "Okay, {name} is actually great", "Why I keep using {name}"],
  professional: ["3 reasons {name} works", "What {name} did for us", "Honest review: {name}"],
  playful: ["Wait for it... {name}", "Nobody told me about {name}", "I was today years old: {name}"],
  bold: ["Stop buying anything else: {name}", "{name} changed my routine", "This is why {name} wins"],
  minimal: ["{name}, day one", "Trying {name}", "{name} in 10 seconds"],
};

/** The product's name, else the first sentence of the brief or caption, without final punctuation. */
function subjectName(s: TextSubject): string {
  const raw = s.name ? squash(s.name) : unperiod(sentences(s.brief ?? s.caption)[0] ?? "");
  return (raw || "this").slice(0, 60);
}

/** The first sentence of `s` (Intl.Segmenter), when it is at most 280 characters. */
function firstSentence(s: string | undefined): string | undefined {
  const first = sentences(s)[0];
  return first && first.length <= 280 ? first : undefined;
}

function hashtagsFor(s: TextSubject, network: string | undefined, offset: number): string[] {
  const words = [s.brand, ...(s.tags ?? []), s.name?.split(/\s+/).slice(0, 2).join("")]
    .filter((w): w is string => Boolean(w))
    .map(normaliseHashtag)
    .filter((w): w is string => Boolean(w));
  const generic = ["#newarrival", "#musthave", "#shopsmall", "#instadaily", "#trending"];
  const max = network === "x" || network === "linkedin" ? 3 : 6;
  const out: string[] = [];
  for (const tag of [...words, ...generic.slice(offset % generic.length), ...generic]) {
    const lower = tag.toLowerCase();
    if (!out.some((t) => t.toLowerCase() === lower)) out.push(tag);
    if (out.length >= max) break;
  }
  return out;
}

const fill = (template: string, name: string) => template.replaceAll("{name}", name);

export const localAiText: AiTextProvider = {
  name: "local",
  async captions(req: CaptionRequest): Promise<CaptionVariation[]> {
    const name = subjectName(req.subject);
    const detail =
      firstSentence(req.subject.description) ??
      firstSentence(req.subject.brief) ??
      firstSentence(req.subject.caption);
    const price = priceText(req.subject);
    const hooks = HOOKS[req.tone];
    const calls = CALLS[req.tone];
    return Array.from({ length: req.count }, (_v, i) => {
      const hook = fill(hooks[i % hooks.length]!, name).slice(0, LIMITS.hook);
      const parts = [hook, detail, price ? `Now ${price}.` : undefined, calls[i % calls.length]];
      const hashtags = req.includeHashtags === false ? [] : hashtagsFor(req.subject, req.network, i);
      const body = parts.filter(Boolean).join(" ");
      const caption = (hashtags.length > 0 ? `${body}\n\n${hashtags.join(" ")}` : body).slice(
        0,
        LIMITS.caption,
      );
      return { caption, hook, hashtags };
    });
  },
  async ugcHooks(req: HookRequest): Promise<string[]> {
    const name = subjectName(req.subject);
    const pool = [...UGC[req.tone], ...HOOKS[req.tone]];
    return Array.from({ length: req.count }, (_v, i) => {
      const base = fill(pool[i % pool.length]!, name);
      const round = Math.floor(i / pool.length);
      const suffix = round > 0 ? ` (${round + 1})` : "";
      return base.slice(0, LIMITS.ugcHook - suffix.length).trimEnd() + suffix;
    });
  },
  async carouselCopy(req: CarouselCopyRequest): Promise<SlideCopy[]> {
    return localCarouselCopy(req);
  },
  async postCaption(req: PostCaptionRequest): Promise<string> {
    return localPostCaption(req);
  },
};
