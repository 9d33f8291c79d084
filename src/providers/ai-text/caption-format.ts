/**
 * The shape of a generated post's caption (docs/operations.md "Captions of generated posts"), shared by every
 * text provider: a hook line, two to four short lines of value, a call to action, a blank line and 3 to 8
 * hashtags. Providers produce the parts; `formatPostCaption` cleans and assembles them, so the posted text
 * has the same shape whichever provider wrote it.
 */
import { key, squash } from "./sentences.ts";
import { LIMITS, normaliseHashtag } from "./types.ts";

/** Value lines per caption. */
export const CAPTION_LINES = { min: 2, max: 4 } as const;
/** Hashtags per caption. */
export const CAPTION_HASHTAGS = { min: 3, max: 8 } as const;

/** The parts of a caption before assembly (any provider's output: untrusted, unbounded). */
export interface CaptionParts {
  hook: string;
  lines: string[];
  callToAction: string;
  hashtags: string[];
}

/** One line: control, format-breaking and line-separator characters removed, white space squashed. */
export function cleanLine(s: string): string {
  return squash(s.replace(/[\p{Cc}\u2028\u2029]/gu, " "));
}

/** Hashtags normalised (`#word`), case-insensitively unique, at most CAPTION_HASHTAGS.max. */
export function uniqueHashtags(tags: Iterable<string>): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const tag = normaliseHashtag(raw);
    if (tag && !out.some((t) => t.toLowerCase() === tag.toLowerCase())) out.push(tag);
    if (out.length >= CAPTION_HASHTAGS.max) break;
  }
  return out;
}

/**
 * The caption text: the hook, the value lines (empty and repeated lines dropped, at most four), the call to
 * action, then the hashtags on their own line. Lines are dropped from the end of the value lines until the
 * whole text is at most LIMITS.caption characters; nothing is cut inside a line. The result contains no
 * control character other than `\n`.
 */
export function formatPostCaption(parts: CaptionParts): string {
  const seen = new Set<string>();
  const fresh = (line: string) => {
    const k = key(line);
    if (!k || seen.has(k)) return false;
    seen.add(k);
    return true;
  };
  const hook = cleanLine(parts.hook);
  fresh(hook);
  const cta = cleanLine(parts.callToAction);
  fresh(cta);
  const lines = parts.lines.map(cleanLine).filter(fresh).slice(0, CAPTION_LINES.max);
  const tags = uniqueHashtags(parts.hashtags).join(" ");
  const text = (body: string[]) =>
    [hook, ...body, cta].filter(Boolean).join("\n") + (tags ? `\n\n${tags}` : "");
  while (lines.length > 0 && text(lines).length > LIMITS.caption) lines.pop();
  const out = text(lines);
  return out.length <= LIMITS.caption ? out : out.slice(0, LIMITS.caption).trimEnd();
}
