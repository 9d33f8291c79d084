/**
 * LinkedIn's "little text" format of a post's `commentary`: the characters `| { } @ [ ] ( ) < > # \ * _ ~` are
 * reserved (mentions, hashtags and templates are written with them) and must be escaped with a backslash to
 * appear as typed; an unescaped one can cut the text short or be refused
 * (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format).
 */

const RESERVED = /[|{}@[\]()<>#\\*_~]/g;

/** `text` with every reserved character escaped (`(a)` -> `\(a\)`), so LinkedIn shows it as written. */
export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, (c) => `\\${c}`);
}

/** The text a commentary shows: backslash escapes removed (`\(a\)` -> `(a)`). */
export function unescapeLittleText(commentary: string): string {
  return commentary.replace(/\\([|{}@[\]()<>#\\*_~])/g, "$1");
}
