/**
 * The local provider's caption for a generated post (offline, deterministic): a hook line from the tone's
 * templates, two to four value lines that are whole sentences of the product's description (its features,
 * those sharing words with the brief first, short facts joined on one line, then what it is for and its
 * reviews: product-facts.ts), then the slides' own sentences, the tags and brand when the description is
 * short; a call to action with the
 * price and the product link; hashtags from the product's fields. Assembled by `formatPostCaption`.
 */
import { CAPTION_LINES, formatPostCaption } from "./caption-format.ts";
import { CALLS, HOOKS, LINK_CALLS, priceText, productHashtags } from "./local-words.ts";
import { boundedSentence } from "./phrases.ts";
import { templateSentences } from "./local-carousel.ts";
import { productFacts } from "./product-facts.ts";
import { key, period, sentences, squash, words } from "./sentences.ts";
import type { PostCaptionRequest } from "./types.ts";

/** Longest value line, in characters (a longer sentence is cut after a clause mark, or left out). */
const LINE_MAX = 120;

/** "a", "a and b", "a, b and c". */
const listText = (items: string[]) =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;

/** A valid http(s) URL, or undefined. */
function httpUrl(url: string | undefined): string | undefined {
  try {
    const u = new URL(url ?? "");
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** The caption of a generated post (see the module comment). */
export function localPostCaption(req: PostCaptionRequest): string {
  const s = req.subject;
  const name = squash(s.name ?? "") || "this";
  const tone = req.tone ?? "friendly";
  const price = priceText(s);
  const url = httpUrl(req.productUrl);
  const lines: string[] = [];
  const taken = new Set<string>();
  const add = (line: string | undefined) => {
    if (!line || lines.length >= CAPTION_LINES.max || taken.has(key(line))) return;
    if ([...taken].some((k) => k.includes(key(line)) || key(line).includes(k))) return;
    taken.add(key(line));
    lines.push(line);
  };
  const facts = productFacts(s);
  for (const f of [...facts.features.map((x) => x.sentence), ...facts.benefits, ...facts.proof])
    add(boundedSentence(f, LINE_MAX));
  // The slides' own sentences, not the carousel writer's templates ("This is X, up close.").
  const templates = templateSentences(s, req.productUrl);
  for (const slide of req.slides.slice(1, -1)) {
    for (const b of sentences(slide.body))
      if (words(b).length >= 4 && !templates.has(key(b))) add(boundedSentence(b, LINE_MAX));
  }
  const fillers = [
    s.tags && s.tags.length > 0 ? `Made for ${listText(s.tags.slice(0, 3))}.` : undefined,
    s.brand && !key(name).includes(key(s.brand)) ? `From ${s.brand}.` : undefined,
    price && !url ? `Yours for ${price}.` : undefined,
    `${name}, available now.`,
    "New in the shop.",
  ];
  for (const f of fillers) if (lines.length < CAPTION_LINES.min) add(f);
  const callToAction = url
    ? `${LINK_CALLS[tone].replace("{offer}", price ? `${name} for ${price}` : name)} ${url}`
    : CALLS[tone][0]!;
  return formatPostCaption({
    hook: period(HOOKS[tone][0]!.replaceAll("{name}", name)),
    lines,
    callToAction,
    hashtags: productHashtags(s),
  });
}
