/**
 * Facebook Page counters for the analytics sync (`NetworkMetrics`, ../network.ts; service spec 2.7 analytics
 * rules, 6.3), Graph API with the Page token (networks.md 2.3):
 * - account: `GET /{page-id}?fields=followers_count` -> followers
 *   (https://developers.facebook.com/docs/graph-api/reference/page). Views, likes, comments and shares of
 *   the whole Page are null: Page Insights give them per period (day, week, days_28), not as a lifetime
 *   total, and `fan_count` counts the people who like the Page, not likes on its posts.
 * - post: the post's fields `reactions.limit(0).summary(total_count)` -> likes (every reaction, Like
 *   included), `comments.limit(0).summary(total_count)` -> comments, `shares` -> shares (Facebook leaves the
 *   field out while a post has no shares, so a post read without it has 0 shares)
 *   (https://developers.facebook.com/docs/graph-api/reference/post); and
 *   `GET /{post-id}/insights?metric=post_media_view,post_total_media_view_unique&period=lifetime` -> views,
 *   reach (the current metrics: `post_impressions*` were deprecated on 2025-06-15,
 *   https://developers.facebook.com/docs/platforminsights/page/deprecated-metrics); needs `read_insights`.
 *   Facebook answers no insights for some Pages and posts (Pages under 100 likes, data not ready): views
 *   and reach are then null. Saves: Facebook does not report them (null).
 * - a video delivery's network id is the video id: its Page post comes from `GET /{video-id}?fields=post_id`.
 * Errors: as ./graph.ts maps them (code 190 -> NetworkAuthError, rate limits -> NetworkRateLimitError).
 */
import type { SocialHttp } from "../http.ts";
import {
  type AdapterAccount,
  type MetricsPost,
  type NetworkMetrics,
  NetworkRejectedError,
  requireMetricsScopes,
} from "../network.ts";
import { GRAPH_VERSION, graphRequest, insightValues } from "./graph.ts";
import { FACEBOOK_GRAPH, FACEBOOK_INSIGHTS_SCOPES } from "./table.ts";

const api = (path: string) => `${FACEBOOK_GRAPH}/${GRAPH_VERSION}/${path}`;

/** Post fields read for the engagement counters. */
const POST_FIELDS = "reactions.limit(0).summary(total_count),comments.limit(0).summary(total_count),shares";
/** Post insights read for views and reach. */
const POST_INSIGHTS = ["post_media_view", "post_total_media_view_unique"] as const;

interface PostFields {
  reactions?: { summary?: { total_count?: unknown } };
  comments?: { summary?: { total_count?: unknown } };
  shares?: { count?: unknown };
}

const count = (v: unknown): number | null => (typeof v === "number" && v >= 0 ? v : null);

/** The Facebook Page metrics reader; requests go through `http` (../http.ts). */
export function facebookMetrics(http: SocialHttp): NetworkMetrics {
  const get = <T>(
    account: AdapterAccount,
    path: string,
    params: Record<string, string>,
    signal?: AbortSignal,
  ) =>
    graphRequest<T>(http, {
      method: "GET",
      url: api(path),
      params,
      accessToken: account.tokens.accessToken,
      signal,
    });

  /** The Page post of a delivery: the video's post for videos, else the saved post id. */
  const postIdOf = async (account: AdapterAccount, post: MetricsPost, signal?: AbortSignal) => {
    if (post.networkIds.videoId !== post.networkPostId) return post.networkPostId;
    const r = await get<{ post_id?: unknown }>(account, post.networkPostId, { fields: "post_id" }, signal);
    if (typeof r.body.post_id !== "string" || !r.body.post_id)
      throw new NetworkRejectedError("Facebook has no Page post for this video yet");
    return r.body.post_id;
  };

  return {
    async account(account, signal) {
      const r = await get<{ followers_count?: unknown }>(
        account,
        account.networkAccountId,
        { fields: "followers_count" },
        signal,
      );
      return {
        followers: count(r.body.followers_count),
        views: null,
        likes: null,
        comments: null,
        shares: null,
      };
    },

    async post(account, post, signal) {
      requireMetricsScopes(account, FACEBOOK_INSIGHTS_SCOPES);
      const postId = await postIdOf(account, post, signal);
      const fields = (await get<PostFields>(account, postId, { fields: POST_FIELDS }, signal)).body;
      let insights = new Map<string, number>();
      try {
        const r = await get<{ data?: unknown }>(
          account,
          `${postId}/insights`,
          { metric: POST_INSIGHTS.join(","), period: "lifetime" },
          signal,
        );
        insights = insightValues(r.body);
      } catch (err) {
        // A refused insights request (no insights for this Page or post) leaves views and reach null; auth,
        // rate-limit and transient errors stop the read as any other call.
        if (!(err instanceof NetworkRejectedError)) throw err;
      }
      return {
        views: insights.get("post_media_view") ?? null,
        reach: insights.get("post_total_media_view_unique") ?? null,
        likes: count(fields.reactions?.summary?.total_count),
        comments: count(fields.comments?.summary?.total_count),
        shares: fields.shares === undefined ? 0 : count(fields.shares.count),
        saves: null,
      };
    },
  };
}
