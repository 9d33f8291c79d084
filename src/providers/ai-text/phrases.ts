/**
 * Headlines cut from product sentences, for the local copy writer (docs/providers.md "AI text"). A headline
 * is 2 to 8 words and ends where a clause ends: at a clause mark (`,` `;` `:` a spaced dash), before a
 * relative or linking word ("that", "so", "with"), or at the end of the sentence; never after an article, a
 * preposition or a conjunction, never inside a number ("1.2" is one word) and never on a number that the next
 * word belongs to ("for 24" before "hours"). The rest of the sentence becomes the body, so the headline never
 * repeats its body.
 */
import { capitalise, period, squash, unperiod } from "./sentences.ts";

/** Words per headline. */
export const HEADLINE_WORDS = { min: 2, max: 8 } as const;
/** Longest slide body the local writer composes, in characters. */
export const BODY_MAX = 160;

/** Words a phrase never ends on: it would stop in the middle of a clause. */
export const DANGLING = new Set(
  "a an the of and or but nor with without for to in on at by from into onto over under about as than then that which who whom whose so because while whereas although though since when where if unless until its it's your our their his her my this these those every each all some any more most very not no is are was were be been being has have had do does did can could will would should may might must just only also even such plus via per vs e.g i.e incl approx etc".split(
    " ",
  ),
);

/** Words that open a subordinate or relative clause: a headline may stop before them. */
const CLAUSE_OPENERS = new Set(
  "that which who whose so because while whereas although though since when where unless until".split(" "),
);

/**
 * Conjunctions a headline may stop before when nothing better is in reach ("... grips in wet hands and
 * survives drops" -> "Survives drops"). Not prepositions: the rest would not stand as a sentence.
 */
const LINKS = new Set(["and", "but", "plus"]);

/** Openers dropped from the start of a body cut after them ("that keeps drinks cold" -> "Keeps drinks cold"). */
const DROPPED_OPENERS = new Set([
  "that",
  "which",
  "who",
  "so",
  "and",
  "plus",
  "while",
  "whereas",
  "e.g",
  "i.e",
]);

const OPENING = "([{“‘\"'";
const CLOSING = ".,;:!?)]}”’\"'…";
const MARKS = new Set([",", ";", ":"]);
const DASHES = new Set(["-", "–", "—"]);

/** One word of a sentence as written ("bottle,", "$39.00", "leak-proof") with its bare form. */
interface Word {
  raw: string;
  /** Lower case, without surrounding punctuation. */
  bare: string;
  /** A clause mark (`,` `;` `:` or a dash) follows this word. */
  mark: boolean;
}

/** The words of `s` split on white space (hyphenated compounds, decimals and prices stay whole). */
function wordsOf(s: string): Word[] {
  const out: Word[] = [];
  for (const raw of squash(s).split(" ")) {
    if (!raw) continue;
    const last = out.at(-1);
    if (DASHES.has(raw)) {
      if (last) last.mark = true;
      continue;
    }
    if (raw.startsWith("(") && last) last.mark = true;
    let end = raw.length;
    while (end > 0 && CLOSING.includes(raw[end - 1]!)) end--;
    let start = 0;
    while (start < end && OPENING.includes(raw[start]!)) start++;
    const bare = raw.slice(start, end).toLowerCase();
    if (!bare) continue;
    out.push({ raw, bare, mark: [...raw.slice(end)].some((c) => MARKS.has(c)) });
  }
  return out;
}

const numeric = (w: string) => /\p{N}/u.test(w);

/** The text of words `[from, to)` as written, without trailing clause or sentence punctuation. */
function join(ws: Word[], from: number, to: number): string {
  return ws
    .slice(from, to)
    .map((w) => w.raw)
    .join(" ")
    .replace(/[\s,;:.!?…]+$/u, "");
}

/** True when every opening bracket or quote in `s` is closed in `s`. */
function balanced(s: string): boolean {
  const pairs: Array<[string, string]> = [
    ["(", ")"],
    ["[", "]"],
    ["“", "”"],
  ];
  if (pairs.some(([o, c]) => s.split(o).length !== s.split(c).length)) return false;
  return s.split('"').length % 2 === 1;
}

/**
 * True when the phrase `words[0, k)` of a `total`-word sentence can stand as a headline: 2 to 8 words, not
 * ending on a dangling word, not ending on a number the next word belongs to, brackets and quotes closed.
 */
function headlineAt(ws: Word[], k: number): boolean {
  if (k < HEADLINE_WORDS.min || k > HEADLINE_WORDS.max) return false;
  const last = ws[k - 1]!;
  if (DANGLING.has(last.bare) || last.bare.endsWith("'s")) return false;
  if (numeric(last.bare) && k < ws.length && !last.mark) return false;
  return balanced(join(ws, 0, k));
}

/** A sentence split into a headline and the body that follows it. */
export interface Split {
  headline: string;
  /** The rest of the sentence as its own sentence; undefined when the whole sentence is the headline. */
  body: string | undefined;
}

/** Words a body never opens with: the rest would lack its subject ("... and is machine washable"). */
const SUBJECTLESS = new Set(
  "is are was were be has have had can will would should may might must does do".split(" "),
);

/**
 * The rest of the sentence after word `k`, as a sentence of at least `minWords` words, or undefined when
 * it would not stand alone: only a bracketed aside, a verb without its subject, or the tail of a list
 * ("..., a band and a printed guide").
 */
function restAt(ws: Word[], k: number, minWords: number): string | undefined {
  let from = k;
  if (DROPPED_OPENERS.has(ws[from]?.bare ?? "")) from++;
  if (ws.length - from < minWords) return undefined;
  const first = ws[from]!;
  if (first.raw.startsWith("(") || SUBJECTLESS.has(first.bare)) return undefined;
  const tail = ws.slice(from).map((w) => w.bare);
  if ((first.bare === "a" || first.bare === "an") && (tail.includes("and") || tail.includes("or")))
    return undefined;
  const rest = period(capitalise(join(ws, from, ws.length)));
  return rest.length <= BODY_MAX && balanced(rest) ? rest : undefined;
}

/** The headline text: the phrase, without a leading "A"/"An" when three words or more remain. */
function headlineText(ws: Word[], k: number): string {
  const from = (ws[0]!.bare === "a" || ws[0]!.bare === "an") && k >= 4 ? 1 : 0;
  return capitalise(join(ws, from, k));
}

/**
 * Splits `sentence` into a headline and a body (see the module comment), or undefined when no cut gives
 * both a headline and a body of at least three words. A sentence of 2 to 8 words splits only at a clause
 * mark (body of 2 words or more); otherwise it is a headline on its own (`body` undefined).
 */
export function splitSentence(sentence: string): Split | undefined {
  const ws = wordsOf(sentence);
  const short = ws.length <= HEADLINE_WORDS.max;
  const cuts: Array<{ k: number; rank: number }> = [];
  for (let k = HEADLINE_WORDS.min; k <= HEADLINE_WORDS.max && k < ws.length; k++) {
    const next = ws[k]!.bare;
    const rank = ws[k - 1]!.mark ? 0 : CLAUSE_OPENERS.has(next) ? 1 : LINKS.has(next) ? 2 : -1;
    if (rank >= 0 && headlineAt(ws, k) && !(rank === 2 && k < 3)) cuts.push({ k, rank });
  }
  cuts.sort((a, b) => a.rank - b.rank || b.k - a.k);
  for (const { k, rank } of cuts) {
    if (short && rank > 0) continue;
    const body = restAt(ws, k, short ? 2 : rank === 2 ? 4 : 3);
    if (body) return { headline: headlineText(ws, k), body };
  }
  if (short && headlineAt(ws, ws.length))
    return { headline: capitalise(unperiod(join(ws, 0, ws.length))), body: undefined };
  return undefined;
}

/** True when `s` is a phrase the local writer may use as a headline (2 to 8 words, ends cleanly). */
export function isHeadline(s: string): boolean {
  const ws = wordsOf(s);
  return headlineAt(ws, ws.length);
}

/**
 * `sentence` bounded to `max` characters (default BODY_MAX): whole when it fits, else cut after its last
 * clause mark that leaves at least four words; undefined when there is none.
 */
export function boundedSentence(sentence: string, max: number = BODY_MAX): string | undefined {
  const s = period(squash(sentence));
  if (s.length <= max) return s;
  const ws = wordsOf(s);
  for (let k = ws.length - 1; k >= 4; k--) {
    if (!ws[k - 1]!.mark || DANGLING.has(ws[k - 1]!.bare)) continue;
    const cut = period(join(ws, 0, k));
    if (cut.length <= max && balanced(cut)) return cut;
  }
  return undefined;
}
