/**
 * Sentences and words of product text for the local copy writer. Sentences come from `Intl.Segmenter`
 * (Unicode UAX #29 sentence boundaries, via ICU): a full stop inside a number ("1.2", "$39.00") or
 * followed by a lower-case word ("e.g. in a bag") never ends a sentence. ICU's own abbreviation list is not
 * reachable from V8 (the `-u-ss-` locale extension is ignored), so a segment ending in a title or Latin
 * abbreviation ("Dr.", "approx.", "incl.") is joined to the next one. Lines and list items (`-`, `*`, `•`,
 * `1.`, `1)`) are separate facts. No regular expression on `.` decides a boundary.
 */

const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });
const wordSegmenter = new Intl.Segmenter("en", { granularity: "word" });

/**
 * Abbreviations after which a sentence never ends (lower case, without the full stop). Units ("min", "oz")
 * and "No." are left out: they often do end a sentence, and before a number ICU keeps them joined anyway.
 */
const ABBREVIATIONS = new Set(
  "approx appx ca cf dept dr e.g eg excl i.e ie incl jr misc mr mrs prof qty sr st vs".split(" "),
);

/** Marks that open a list item at the start of a line. */
const BULLETS = new Set(["-", "*", "•", "·", "–", "—", "▪", "►", "✓", "✔", "+"]);

/** Collapses white space (including line breaks) to single spaces and trims. */
export const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** The line without a leading list mark ("- ", "• ", "1. ", "2) "). */
function unbullet(line: string): string {
  const t = line.trim();
  if (BULLETS.has(t[0] ?? "") && /\s/.test(t[1] ?? "")) return t.slice(2).trim();
  let i = 0;
  while (i < t.length && i < 3 && t[i]! >= "0" && t[i]! <= "9") i++;
  if (i > 0 && (t[i] === "." || t[i] === ")") && /\s/.test(t[i + 1] ?? "")) return t.slice(i + 2).trim();
  return t;
}

/** The last word of a segment, lower case, without its final full stop ("Dr. " -> "dr", "e.g. " -> "e.g"). */
function lastWord(segment: string): string {
  const t = segment.trimEnd();
  if (!t.endsWith(".")) return "";
  const start = t.lastIndexOf(" ") + 1;
  return t
    .slice(start, -1)
    .toLowerCase()
    .replace(/^[("[]+/, "");
}

/**
 * The sentences of `text`, in order: white space squashed, list marks removed, fragments shorter than 3
 * characters dropped. Each line (and each list item) is segmented on its own.
 */
export function sentences(text: string | undefined): string[] {
  const out: string[] = [];
  for (const line of (text ?? "").split(/\r?\n|\u2028|\u2029/)) {
    const item = unbullet(line);
    if (!item) continue;
    let carry = "";
    for (const { segment } of sentenceSegmenter.segment(item)) {
      const joined = carry + segment;
      if (ABBREVIATIONS.has(lastWord(segment))) {
        carry = joined;
        continue;
      }
      carry = "";
      const s = squash(joined);
      if (s.length >= 3) out.push(s);
    }
    const rest = squash(carry);
    if (rest.length >= 3) out.push(rest);
  }
  return out;
}

/** One token of a sentence: a word (letters or digits, with inner `.` `,` `'` `-` kept) or punctuation. */
export interface Token {
  text: string;
  /** True for a word or number; false for punctuation and spaces. */
  word: boolean;
}

/** The tokens of `s` (UAX #29 word boundaries: "1.2", "$39.00", "don't" and "leak-proof" stay whole). */
export function tokens(s: string): Token[] {
  return [...wordSegmenter.segment(s)].map((x) => ({ text: x.segment, word: x.isWordLike === true }));
}

/** The words of `s`, in order. */
export const words = (s: string) =>
  tokens(s)
    .filter((t) => t.word)
    .map((t) => t.text);

/** True when `w` contains a digit. */
export const numeric = (w: string) => /\p{N}/u.test(w);

/** Upper-cases the first letter of `s`. */
export const capitalise = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** `s` with one final full stop (an existing `.`, `!`, `?` or `…` is kept). */
export function period(s: string): string {
  const t = s.trim().replace(/[\s,;:–—-]+$/, "");
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}

/** `s` without its final sentence punctuation. */
export const unperiod = (s: string) => s.trim().replace(/[\s.!?…,;:]+$/, "");

/** A comparison key: lower case letters and digits only, single spaces. */
export const key = (s: string) =>
  s
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
