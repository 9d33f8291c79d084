/**
 * What each network's API lets the service do with a post once it is published (docs/social.md "First
 * comments", "Delete with removal from the networks"):
 *
 * - `COMMENT_RULES`: the first comment under the post: the API that posts it and how long it may be. `null`:
 *   the network has no API to comment on a post this way (Pinterest API v5 has no comment endpoint; TikTok's
 *   Content Posting API has none), so a first comment is not posted there (`unsupported`).
 * - `REMOVAL_RULES`: whether the post can be deleted through the API, and with which call. Instagram's
 *   content publishing API and TikTok's Content Posting API have no delete: the copy stays live and the
 *   person removes it by hand.
 *
 * Lengths are characters (Unicode code points), X's the twitter-text weighted length of a post (a reply is
 * a post), each from the network's reference page in `source`.
 */
import { captionLength } from "./rule-check.ts";
import type { Network } from "./types.ts";

export interface CommentRule {
  /** How the comment is posted, as the network names it. */
  api: string;
  /** Longest comment, in `counting` units. */
  maxLength: number;
  counting: "characters" | "x-weighted";
  /** The page the limit and the call come from. */
  source: string;
}

export const COMMENT_RULES: Readonly<Record<Network, CommentRule | null>> = {
  instagram: {
    api: "POST /{ig-media-id}/comments",
    maxLength: 2200,
    counting: "characters",
    source:
      "https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments",
  },
  facebook: {
    api: "POST /{post-id}/comments",
    maxLength: 8000,
    counting: "characters",
    source: "https://developers.facebook.com/docs/graph-api/reference/object/comments/",
  },
  linkedin: {
    api: "POST /rest/socialActions/{urn}/comments",
    maxLength: 1250,
    counting: "characters",
    source: "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api",
  },
  youtube: {
    api: "commentThreads.insert",
    maxLength: 10000,
    counting: "characters",
    source: "https://developers.google.com/youtube/v3/docs/commentThreads/insert",
  },
  x: {
    api: "POST /2/tweets with reply.in_reply_to_tweet_id",
    maxLength: 280,
    counting: "x-weighted",
    source: "https://docs.x.com/x-api/posts/create-post",
  },
  pinterest: null,
  tiktok: null,
};

/** The comment's length as `network` counts it (X: twitter-text weighted length; others: code points). */
export function commentLength(network: Network, text: string): number {
  return network === "x" ? captionLength("x", text) : [...text].length;
}

export interface RemovalRule {
  /** The call that deletes a post, or null when the API has none (the copy stays live). */
  api: string | null;
  /** The page saying so. */
  source: string;
}

export const REMOVAL_RULES: Readonly<Record<Network, RemovalRule>> = {
  x: { api: "DELETE /2/tweets/{id}", source: "https://docs.x.com/x-api/posts/delete-post" },
  facebook: { api: "DELETE /{post-id}", source: "https://developers.facebook.com/docs/pages-api/posts" },
  linkedin: {
    api: "DELETE /rest/posts/{urn}",
    source: "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api",
  },
  pinterest: {
    api: "DELETE /v5/pins/{pin_id}",
    source: "https://developers.pinterest.com/docs/api/v5/pins-delete",
  },
  youtube: { api: "videos.delete", source: "https://developers.google.com/youtube/v3/docs/videos/delete" },
  instagram: {
    api: null,
    source: "https://developers.facebook.com/docs/instagram-platform/content-publishing/",
  },
  tiktok: {
    api: null,
    source: "https://developers.tiktok.com/doc/content-posting-api-reference-direct-post",
  },
};
