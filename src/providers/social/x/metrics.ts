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
 * Posts are read in batches: `GET /2/tweets` takes 1 to 100 comma-separated `ids` in one call, so
 * `readPostMetricsBatch` reads up to `X_POSTS_PER_CALL` posts per call; a post X answers with an entry in
 * `errors` (deleted, protected) instead of `data` maps to a NetworkRejectedError with X's detail.
 */
import type { Tweet, TweetPublicMetrics, User } from "./contract.ts";
import type { SocialHttp } from "../http.ts";
import {
  type AdapterAccount,
  type MetricsPost,
  type NetworkMetrics,
  NetworkRejectedError,
  type PostBatchRead,
} from "../network.ts";
import type { AccountCounters, PostCounters } from "../types.ts";
import { problemText, type XProblem, xRequest } from "./api.ts";

/** A post's public metrics, as the description types them (every counter read as possibly absent). */
type PublicMetrics = Partial<TweetPublicMetrics>;

/** The most ids `GET /2/tweets` takes (https://docs.x.com/x-api/posts/get-posts-by-ids). */
export const X_POSTS_PER_CALL = 100;

/** A post's counters from its `public_metrics` (see the module comment). */
function postCounters(m: PublicMetrics): PostCounters {
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
}

const count = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The X counters; requests go through `http` (../http.ts), `now` is the service clock. */
export function xMetrics(http: SocialHttp, now: () => Date): NetworkMetrics {
  /** One `GET /2/tweets?ids=` call for up to 100 posts. */
  const readPostMetricsBatch = async (
    account: AdapterAccount,
    posts: readonly MetricsPost[],
    signal?: AbortSignal,
  ): Promise<PostBatchRead> => {
    if (posts.length > X_POSTS_PER_CALL)
      throw new RangeError(`GET /2/tweets takes at most ${X_POSTS_PER_CALL} ids, not ${posts.length}`);
    const ids = posts.map((p) => p.networkPostId);
    const r = await xRequest<Array<Pick<Tweet, "id" | "public_metrics">>>(
      http,
      {
        method: "GET",
        path: "/2/tweets",
        query: { ids: ids.join(","), "tweet.fields": "public_metrics" },
        accessToken: account.tokens.accessToken,
        signal,
      },
      now,
    );
    const found = new Map((r.data ?? []).map((t) => [t.id, t]));
    type PostError = NonNullable<XProblem["errors"]>[number] & { resource_id?: string; value?: string };
    const errors = r.errors as PostError[] | undefined;
    return new Map<string, PostCounters | NetworkRejectedError>(
      ids.map((id) => {
        const tweet = found.get(id);
        if (tweet) return [id, postCounters(tweet.public_metrics ?? {})];
        const own = errors?.filter((e) => e.resource_id === id || e.value === id);
        return [
          id,
          new NetworkRejectedError(
            `X did not return the post (${problemText(200, { errors: own?.length ? own : r.errors })})`,
          ),
        ];
      }),
    );
  };
  return {
    async account(account, signal): Promise<AccountCounters> {
      const r = await xRequest<Partial<Pick<User, "public_metrics">>>(
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
      const read = (await readPostMetricsBatch(account, [post], signal)).get(post.networkPostId);
      if (!read || read instanceof Error) throw read ?? new NetworkRejectedError("X did not return the post");
      return read;
    },
    postBatchSize: X_POSTS_PER_CALL,
    readPostMetricsBatch,
  };
}
