/**
 * What the local copy writer and the carousel outline know about a product (docs/providers.md "AI text"): its
 * description cut into sentences (Intl.Segmenter, sentences.ts) and sorted into kinds (features, social
 * proof, how-to steps), each feature already split into a slide's headline and body (phrases.ts), plus the
 * short name, kind, price and tags. Deterministic: the same subject always gives the same facts, so the
 * outline (which picks the slide roles from how many facts there are) and the copy agree.
 */
import { category, keywords, priceText } from "./local-words.ts";
import { boundedSentence, HEADLINE_WORDS, splitSentence } from "./phrases.ts";
import { sentences, squash, unperiod } from "./sentences.ts";
import type { TextSubject } from "./types.ts";

/** One content slide's worth of a feature. */
export interface Feature {
  /** The headline cut from the sentence, or undefined when the sentence gives none (a generic one is used). */
  headline: string | undefined;
  /** The body: the sentence after its headline, the whole sentence, or short facts joined ("" for a lone short fact). */
  body: string;
  /** The whole sentence (bounded), or the joined short facts. */
  sentence: string;
  /** True for short facts joined into one body (a "good to know" slide). */
  details?: true;
}

export interface ProductFacts {
  /** The product's name, at most 8 words (the part before a separator such as " - " or "|"). */
  shortName: string;
  /** The product's kind from its name ("bottle"), if the name ends in a plain word. */
  kind: string | undefined;
  brand: string | undefined;
  /** "$39.00", when price and currency are known. */
  price: string | undefined;
  tags: string[];
  /** Feature slides, best first (sharing words with the brief first, then in the description's order). */
  features: Feature[];
  /** Sentences saying who or what the product is for ("Built for muddy trails and rainy weekends."). */
  benefits: string[];
  /** Review quotes and ratings found in the description ("Rated 4.8 out of 5 by 2,300 sleepers."). */
  proof: string[];
  /** Sentences about the price or an offer ("Was $149.99, now $119.00."), for the price slide. */
  priceLines: string[];
  /** Instruction sentences (numbered steps or sentences opening with an instruction verb). */
  howTo: string[];
  /** The brief's sentences when they read as copy rather than as instructions to the writer. */
  briefLines: string[];
}

/** Verbs that open an instruction ("Mix the starter...", "Feed it once a day."). */
const INSTRUCTION_VERBS = new Set(
  "add apply attach bake boil brew charge clean connect dab feed fill fold heat insert lift massage mix place plug pour press put remove rinse screw shake slide soak spray spread sprinkle steep stir store twist unscrew wash wipe".split(
    " ",
  ),
);

/** Words that say a brief is an instruction to the writer, not copy to show. */
const BRIEF_INSTRUCTIONS = new Set(
  "write focus highlight emphasise emphasize mention target avoid include keep make use tone audience carousel slide slides caption post hashtags".split(
    " ",
  ),
);

/** An amount of money in the text: a currency sign before a number or an ISO code after one. */
const MONEY = /[$€£¥₹]\s?\p{N}|\p{N}\s?(?:USD|EUR|GBP|JPY|CHF|CAD|AUD)\b/u;

/** A sentence saying what the product is for. */
const BENEFIT = /\b(?:perfect|ideal|great|made|designed|built|suited)\s+for\b/iu;

const PROOF =
  /\b(rated|reviews?|stars?|out of 5|bestsell\w*|best-sell\w*|award\w*|customers?|says|loved by)\b|[★⭐]|^[“"]/iu;

/** The product's name at most 8 words long: the part before " - ", " | ", ":" or "(" when that helps. */
export function shortName(name: string | undefined): string {
  const full = squash(name ?? "") || "this product";
  const words = (s: string) => s.split(" ").filter(Boolean).length;
  if (words(full) <= HEADLINE_WORDS.max) return full;
  for (const sep of [" | ", " - ", " – ", " — ", ": ", " (", ", "]) {
    const head = full.split(sep)[0]!.trim();
    if (words(head) >= 1 && words(head) <= HEADLINE_WORDS.max) return head;
  }
  return full.split(" ").slice(0, 6).join(" ");
}

/** True when the sentence reads as an instruction step. */
function isStep(s: string, numbered: boolean): boolean {
  const first = s.split(" ")[0]!.toLowerCase();
  return numbered || INSTRUCTION_VERBS.has(first);
}

/** Numbered list lines of `text` ("1. Mix ...", "2) Feed ..."), by their text after the number. */
function numberedLines(text: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const line of (text ?? "").split(/\r?\n/)) {
    const t = line.trim();
    let i = 0;
    while (i < t.length && t[i]! >= "0" && t[i]! <= "9") i++;
    if (i > 0 && (t[i] === "." || t[i] === ")")) out.add(squash(t.slice(i + 1)));
  }
  return out;
}

/** Short facts (2 to 5 words, no headline/body split) joined into one body: a "good to know" slide. */
function shortFeature(group: string[]): Feature {
  const joined = group.map((s) => `${unperiod(s)}.`).join(" ");
  if (group.length === 1) return { headline: unperiod(group[0]!), body: "", sentence: joined };
  return { headline: undefined, body: joined, sentence: joined, details: true };
}

/** A description sentence as a feature candidate: one slide of its own, or a short fact to group. */
type Candidate = { n: number; i: number } & ({ feature: Feature } | { short: string });

/** The list a sentence that is not a feature belongs to, if any. */
function otherKind(sentence: string, s: TextSubject, steps: Set<string>) {
  if (PROOF.test(sentence)) return "proof";
  if (s.price !== undefined && MONEY.test(sentence)) return "priceLines";
  if (BENEFIT.test(sentence)) return "benefits";
  if (isStep(sentence, steps.has(sentence))) return "howTo";
  return undefined;
}

/** The facts of `s` (see the module comment). */
export function productFacts(s: TextSubject): ProductFacts {
  const brief = new Set(keywords(s.brief));
  const steps = numberedLines(s.description);
  const lists = {
    proof: [] as string[],
    priceLines: [] as string[],
    benefits: [] as string[],
    howTo: [] as string[],
  };
  const candidates: Candidate[] = [];
  sentences(s.description).forEach((sentence, i) => {
    const whole = boundedSentence(sentence);
    const other = otherKind(sentence, s, steps);
    if (other) {
      if (whole) lists[other].push(whole);
      return;
    }
    const n = keywords(sentence).filter((w) => brief.has(w)).length;
    const split = splitSentence(sentence);
    if (split && split.body === undefined && sentence.split(" ").length <= 5)
      candidates.push({ n, i, short: sentence });
    else if (split?.body)
      candidates.push({ n, i, feature: { ...split, body: split.body, sentence: whole ?? split.body } });
    else if (whole) candidates.push({ n, i, feature: { headline: undefined, body: whole, sentence: whole } });
  });
  candidates.sort((a, b) => b.n - a.n || a.i - b.i);
  const features: Feature[] = [];
  const shorts = candidates.flatMap((c) => ("short" in c ? [c.short] : []));
  for (const c of candidates) {
    if ("feature" in c) features.push(c.feature);
    else if (c.short === shorts[0]) features.push(shortFeature(shorts.splice(0, 3)));
  }
  const briefLines = sentences(s.brief).filter(
    (l) =>
      !keywords(l).some((w) => BRIEF_INSTRUCTIONS.has(w)) &&
      !BRIEF_INSTRUCTIONS.has(l.split(" ")[0]!.toLowerCase()),
  );
  return {
    shortName: shortName(s.name),
    kind: category(s),
    brand: s.brand ? squash(s.brand) : undefined,
    price: priceText(s),
    tags: (s.tags ?? []).map(squash).filter(Boolean),
    features,
    ...lists,
    briefLines: briefLines.map((l) => boundedSentence(l)).filter((l): l is string => Boolean(l)),
  };
}
