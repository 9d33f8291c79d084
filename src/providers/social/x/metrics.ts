/**
 * X counters for the analytics sync (networks.md 2.7; https://docs.x.com/x-api/posts/get-posts-by-ids,
 * https://docs.x.com/x-api/users/get-my-user, https://docs.x.com/x-api/fundamentals/metrics):
 * - post: `GET /2/tweets?ids={id}&tweet.fields=public_metrics` -> `public_metrics` {impression_count,
 *   like_count, reply_count, retweet_count, quote_count, bookmark_count}: views = impressions, likes,
 *   comments = replies, shares = retweets + quotes, saves = bookmarks; reach is not given (null);
 * - account: `GET /2/users/me?user.fields=public_metrics` -> followers = `followers_count`. X gives no
 *   account-level views, likes received, comments or shares: null (the user's `like_count` counts the
 *   likes the user GAVE, so it is not mapped).
 * A counter X leaves out is null, never 0.
 */
import type { SocialHttp } from "../http.ts";
import { type NetworkMetrics, NetworkRejectedError } from "../network.ts";
import type { AccountCounters, PostCounters } from "../types.ts";
import { problemText, xRequest } from "./api.ts";

interface PublicMetrics {
  impression_count?: number;
  like_count?: number;
  reply_count?: number;
  retweet_count?: number;
  quote_count?: number;
  bookmark_count?: number;
  followers_count?: number;
}

const count = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The X counters; requests go through `http` (../http.ts), `now` is the service clock. */
export function xMetrics(http: SocialHttp, now: () => Date): NetworkMetrics {
  return {
    async account(account, signal): Promise<AccountCounters> {
      const r = await xRequest<{ public_metrics?: PublicMetrics }>(
        http,
        {
          method: "GET",
          path: "/2/users/me",
          query: { "user.fields": "public_metrics" },
          accessToken: account.tokens.accessToken,
          signal,
        },
        now,
      );
      return {
        followers: count(r.data?.public_metrics?.followers_count),
        views: null,
        likes: null,
        comments: null,
        shares: null,
      };
    },

    async post(account, post, signal): Promise<PostCounters> {
      const r = await xRequest<Array<{ id: string; public_metrics?: PublicMetrics }>>(
        http,
        {
          method: "GET",
          path: "/2/tweets",
          query: { ids: post.networkPostId, "tweet.fields": "public_metrics" },
          accessToken: account.tokens.accessToken,
          signal,
        },
        now,
      );
      const tweet = (r.data ?? []).find((t) => t.id === post.networkPostId);
      if (!tweet) {
        throw new NetworkRejectedError(
          `X did not return the post (${problemText(200, { errors: r.errors })})`,
        );
      }
      const m = tweet.public_metrics ?? {};
      const retweets = count(m.retweet_count);
      const quotes = count(m.quote_count);
      return {
        views: count(m.impression_count),
        reach: null,
        likes: count(m.like_count),
        comments: count(m.reply_count),
        shares: retweets === null && quotes === null ? null : (retweets ?? 0) + (quotes ?? 0),
        saves: count(m.bookmark_count),
      };
    },
  };
}
