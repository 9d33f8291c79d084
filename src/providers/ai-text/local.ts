/**
 * The `local` AI text provider (default): deterministic and offline. Variations are built from the
 * subject's fields (name, brand, description's first sentence, price, tags) and fixed templates per tone;
 * the same request always gives the same text. Documented in docs/providers.md.
 */
import { localCarouselCopy } from "./local-carousel.ts";
import {
  type AiTextProvider,
  type CarouselCopyRequest,
  type CaptionRequest,
  type CaptionVariation,
  type HookRequest,
  LIMITS,
  normaliseHashtag,
  type SlideCopy,
  type TextSubject,
  type Tone,
} from "./types.ts";

const HOOKS: Record<Tone, string[]> = {
  friendly: [
    "Meet {name}",
    "You are going to love {name}",
    "Say hello to {name}",
    "Our favourite right now: {name}",
  ],
  professional: [
    "Introducing {name}",
    "{name}: built for results",
    "Why teams choose {name}",
    "A closer look at {name}",
  ],
  playful: [
    "Stop scrolling: {name} is here",
    "Plot twist: {name}",
    "POV: you just found {name}",
    "{name} just dropped",
  ],
  bold: [
    "{name}. No compromises.",
    "This changes everything: {name}",
    "The only {name} you need",
    "Made to stand out: {name}",
  ],
  minimal: ["{name}.", "Simply {name}", "{name}, nothing more", "Less, but better: {name}"],
};

const CALLS: Record<Tone, string[]> = {
  friendly: ["Tap the link to see more.", "Tell us what you think below!", "Save this for later."],
  professional: ["Learn more at the link in bio.", "Contact us for details.", "Read more at the link."],
  playful: ["Run, don't walk.", "Tag someone who needs this.", "Double tap if you agree."],
  bold: ["Get yours now.", "Don't miss out.", "Claim it today."],
  minimal: ["Link in bio.", "Available now.", "See more."],
};

const UGC: Record<Tone, string[]> = {
  friendly: ["I finally tried {name}", "Okay, {name} is actually great", "Why I keep using {name}"],
  professional: ["3 reasons {name} works", "What {name} did for us", "Honest review: {name}"],
  playful: ["Wait for it... {name}", "Nobody told me about {name}", "I was today years old: {name}"],
  bold: ["Stop buying anything else: {name}", "{name} changed my routine", "This is why {name} wins"],
  minimal: ["{name}, day one", "Trying {name}", "{name} in 10 seconds"],
};

function subjectName(s: TextSubject): string {
  const raw = s.name ?? s.brief ?? s.caption ?? "this";
  const firstLine = raw.split(/[\n.!?]/)[0]!.trim();
  return (firstLine || "this").slice(0, 60);
}

function firstSentence(s: string | undefined): string | undefined {
  const t = s?.replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  const m = /^(.{1,280}?[.!?])(\s|$)/.exec(t);
  return (m?.[1] ?? t.slice(0, 280)).trim();
}

function priceText(s: TextSubject): string | undefined {
  if (s.price === undefined || !s.currency) return undefined;
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: s.currency }).format(s.price);
  } catch {
    return undefined;
  }
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
};
