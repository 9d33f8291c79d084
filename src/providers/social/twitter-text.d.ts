/** Types of the parts of `twitter-text` (v3, no bundled types) that ./rules.ts uses. */
declare module "twitter-text" {
  export interface ParsedTweet {
    /** Length as X counts it (URLs 23, most CJK and emoji 2), compared with 280. */
    weightedLength: number;
    valid: boolean;
    permillage: number;
  }
  export function parseTweet(text: string): ParsedTweet;
  const twitterText: { parseTweet: typeof parseTweet };
  export default twitterText;
}
