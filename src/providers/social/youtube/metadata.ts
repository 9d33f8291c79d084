/**
 * The `snippet` of `videos.insert` from a post (https://developers.google.com/youtube/v3/docs/videos#snippet):
 * - `title`: the first non-empty line of the post's title (or, without one, of its caption), at most 100
 *   characters, cut on a word boundary;
 * - `description`: the caption, at most 5000 bytes of UTF-8 (cut on a character boundary).
 * YouTube refuses `<` and `>` in both (`invalidTitle` / `invalidDescription`): they become the look-alike
 * single angle quotation marks `‹` and `›`. Lengths are Unicode code points (title) and bytes (description).
 */

export const TITLE_MAX_CHARS = 100;
export const DESCRIPTION_MAX_BYTES = 5000;

/** `text` with the characters YouTube refuses in titles and descriptions replaced. */
export function withoutAngleBrackets(text: string): string {
  return text.replace(/</g, "‹").replace(/>/g, "›");
}

/**
 * The video title for a post; `fallback` when the post has no text at all (YouTube requires a title).
 */
export function videoTitle(post: { title: string | null; caption: string }, fallback: string): string {
  const source = post.title?.trim() ? post.title : post.caption;
  const line =
    source
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l !== "") ?? "";
  const clean = withoutAngleBrackets(line.replace(/\s+/g, " "));
  return clean ? cutOnWord(clean, TITLE_MAX_CHARS) : fallback;
}

/**
 * `text` cut to at most `max` code points, at the last whitespace before the limit when the limit falls
 * inside a word (a single word longer than `max` is cut at `max`).
 */
export function cutOnWord(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  let end = max;
  if (!/\s/.test(chars[max]!)) {
    const space = chars.slice(0, max).findLastIndex((c) => /\s/.test(c));
    if (space > 0) end = space;
  }
  return chars.slice(0, end).join("").trimEnd();
}

/** The video description for a caption. */
export function videoDescription(caption: string): string {
  const text = withoutAngleBrackets(caption.trim());
  if (Buffer.byteLength(text) <= DESCRIPTION_MAX_BYTES) return text;
  let out = "";
  let bytes = 0;
  for (const ch of text) {
    const b = Buffer.byteLength(ch);
    if (bytes + b > DESCRIPTION_MAX_BYTES) break;
    out += ch;
    bytes += b;
  }
  return out;
}
