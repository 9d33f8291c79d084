/** Types of the parts of `twitter-text` (v3, no bundled types) that ./rules.ts uses. */
declare module "twitter-text" {
  export interface ParsedTweet {
    /** Length as X counts it (URLs 23, most CJK and emoji 2), compared with 280. */
    weightedLength: number;
    valid: boolean;
    permillage: number;
  }
  export function parseTweet(text: string): ParsedTweet;
  /** The hashtags of `text` without `#`, by X's hashtag rules (not all digits, letters of any script). */
  export function extractHashtags(text: string): string[];
  const twitterText: { parseTweet: typeof parseTweet; extractHashtags: typeof extractHashtags };
  export default twitterText;
}
