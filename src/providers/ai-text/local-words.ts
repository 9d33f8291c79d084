/**
 * The local text provider's word stock: tone templates for hooks and calls to action, the product's price
 * as text, keywords, and hashtags built from the product's own fields. Deterministic, offline.
 */
import { uniqueHashtags } from "./caption-format.ts";
import { numeric, sentences, words } from "./sentences.ts";
import type { TextSubject, Tone } from "./types.ts";

/** Hook lines per tone; `{name}` is the product's name. */
export const HOOKS: Record<Tone, string[]> = {
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

/** Calls to action per tone, for captions without a product link. */
export const CALLS: Record<Tone, string[]> = {
  friendly: ["Tap the link to see more.", "Tell us what you think below!", "Save this for later."],
  professional: ["Learn more at the link in bio.", "Contact us for details.", "Read more at the link."],
  playful: ["Run, don't walk.", "Tag someone who needs this.", "Double tap if you agree."],
  bold: ["Get yours now.", "Don't miss out.", "Claim it today."],
  minimal: ["Link in bio.", "Available now.", "See more."],
};

/** Calls to action per tone that lead to the product link; `{offer}` is "Summit Bottle" or "it for $39.00". */
export const LINK_CALLS: Record<Tone, string> = {
  friendly: "Get {offer} here:",
  professional: "Order {offer}:",
  playful: "Grab {offer} before everyone else:",
  bold: "Get {offer} now:",
  minimal: "Shop {offer}:",
};

/** Words too common to be a keyword or a hashtag. */
export const STOP = new Set(
  "about above across after again also always and another any are around because been before being both but can could does doing down each enough every few for from further had has have having here how into its itself just more most much must never not now off once only other our out over own really same should simply some such than that the their them then there these they this those through too under until very was were what when where which while who why will with within without would you your".split(
    " ",
  ),
);

/** The subject's price in its currency ("$39.00", "€29.90"), or undefined without price or currency. */
export function priceText(s: TextSubject): string | undefined {
  if (s.price === undefined || !s.currency) return undefined;
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: s.currency }).format(s.price);
  } catch {
    return undefined;
  }
}

/** The words of `s` worth matching: lower case, 4+ letters, no digits, no stop words, in order, unique. */
export function keywords(s: string | undefined): string[] {
  const out: string[] = [];
  for (const w of words(s ?? "")) {
    const lower = w.toLowerCase();
    if (lower.length >= 4 && !numeric(lower) && !STOP.has(lower) && !out.includes(lower)) out.push(lower);
  }
  return out;
}

/** The product's kind, from the last word of its name when that is a plain word ("Summit Bottle" -> "bottle"). */
export function category(s: TextSubject): string | undefined {
  const last = words(s.name ?? "")
    .at(-1)
    ?.toLowerCase();
  return last && last.length >= 3 && !numeric(last) && !STOP.has(last) ? last : undefined;
}

/**
 * 3 to 8 hashtags about the product, most specific first: its name as one word, brand, tags, kind, then the
 * description's keywords of 6+ letters that it repeats. Only when that gives fewer than 3: keywords of its
 * first sentence, then generic shop tags.
 */
export function productHashtags(s: TextSubject): string[] {
  const counts = new Map<string, number>();
  for (const w of words(`${s.description ?? ""} ${s.brief ?? ""}`.replace(/-/g, ""))) {
    const l = w.toLowerCase();
    if (l.length >= 6 && !numeric(l) && !STOP.has(l)) counts.set(l, (counts.get(l) ?? 0) + 1);
  }
  const repeated = [...counts.entries()]
    .filter(([, n]) => n >= 2)
    .sort((a, b) => b[1] - a[1])
    .map(([w]) => w);
  const name = words(s.name ?? "").join("");
  const tags = uniqueHashtags([name, s.brand ?? "", ...(s.tags ?? []), category(s) ?? "", ...repeated]);
  if (tags.length >= 3) return tags;
  const lead = keywords(sentences(s.description)[0]?.replace(/-/g, "")).filter((w) => w.length >= 6);
  return uniqueHashtags([...tags, ...lead, "#newarrival", "#shopsmall", "#musthave"]);
}
