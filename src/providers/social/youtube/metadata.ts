/**
 * The `snippet` of `videos.insert` from a post (https://developers.google.com/youtube/v3/docs/videos#snippet):
 * - `title`: the first non-empty line of the post's title (or, without one, of its caption);
 * - `description`: the caption.
 * YouTube takes at most 100 characters of title and 5000 bytes of description: the rule table
 * (../rules.ts) refuses a longer one at publish_post / schedule_post, and the publisher fails a delivery that
 * did not pass that check (../rule-check.ts `textRefusal`): neither is ever cut. YouTube refuses `<` and `>` in
 * both (`invalidTitle` / `invalidDescription`): they become the look-alike single angle quotation marks `‹`
 * and `›` (the description's byte count includes them).
 */
import { postTitle } from "../rule-check.ts";

/** `text` with the characters YouTube refuses in titles and descriptions replaced. */
export function withoutAngleBrackets(text: string): string {
  return text.replace(/</g, "‹").replace(/>/g, "›");
}

/**
 * The video title for a post; `fallback` when the post has no text at all (YouTube requires a title).
 */
export function videoTitle(post: { title: string | null; caption: string }, fallback: string): string {
  return withoutAngleBrackets(postTitle("youtube", post)) || fallback;
}

/** The video description for a caption. */
export function videoDescription(caption: string): string {
  return withoutAngleBrackets(caption.trim());
}
