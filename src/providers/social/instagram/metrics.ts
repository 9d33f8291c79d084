/**
 * Instagram counters for the analytics sync (`NetworkMetrics`, ../network.ts; service spec 2.7 analytics
 * rules, 6.3), Instagram API with Instagram Login (networks.md 2.2 "Insights"):
 * - account: `GET /{ig-user-id}?fields=followers_count` -> followers
 *   (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/get-started).
 *   Views, likes, comments and shares of the whole account are null: the account insights
 *   (`GET /{ig-user-id}/insights`, metric_type=total_value) only total a chosen window (`since`/`until`),
 *   never the account's lifetime, and the service saves lifetime values only
 *   (https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights).
 * - post: `GET /{ig-media-id}/insights?metric=views,reach,likes,comments,shares,saved` (lifetime values) ->
 *   views, reach, likes, comments, shares, saves; needs `instagram_business_manage_insights`
 *   (https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights). A metric
 *   the answer leaves out (Meta answers an empty data set, not 0, for data that does not exist or is not
 *   available yet) is null; a media below the viewer threshold ("(#10) Not enough viewers") gives nulls.
 * Errors: as ../facebook/graph.ts maps them (code 190 -> NetworkAuthError, rate limits -> NetworkRateLimitError).
 */
import { GRAPH_VERSION, graphRequest, InsightsUnavailableError, insightValues } from "../facebook/graph.ts";
import type { SocialHttp } from "../http.ts";
import { NO_POST_COUNTERS, type NetworkMetrics, requireMetricsScopes } from "../network.ts";
import { INSTAGRAM_GRAPH, INSTAGRAM_INSIGHTS_SCOPES } from "./table.ts";

/** Media insight metrics read, in Instagram's names (`saved` is the saves counter). */
const MEDIA_METRICS = ["views", "reach", "likes", "comments", "shares", "saved"] as const;

const api = (path: string) => `${INSTAGRAM_GRAPH}/${GRAPH_VERSION}/${path}`;

/** The Instagram metrics reader; requests go through `http` (../http.ts). */
export function instagramMetrics(http: SocialHttp): NetworkMetrics {
  return {
    async account(account, signal) {
      const r = await graphRequest<{ followers_count?: unknown }>(http, {
        method: "GET",
        url: api(account.networkAccountId),
        params: { fields: "followers_count" },
        accessToken: account.tokens.accessToken,
        signal,
      });
      const followers = r.body.followers_count;
      return {
        followers: typeof followers === "number" && followers >= 0 ? followers : null,
        views: null,
        likes: null,
        comments: null,
        shares: null,
      };
    },

    async post(account, post, signal) {
      requireMetricsScopes(account, INSTAGRAM_INSIGHTS_SCOPES);
      let values: Map<string, number>;
      try {
        const r = await graphRequest<{ data?: unknown }>(http, {
          method: "GET",
          url: api(`${post.networkPostId}/insights`),
          params: { metric: MEDIA_METRICS.join(",") },
          accessToken: account.tokens.accessToken,
          signal,
        });
        values = insightValues(r.body);
      } catch (err) {
        if (err instanceof InsightsUnavailableError) return { ...NO_POST_COUNTERS };
        throw err;
      }
      const v = (name: (typeof MEDIA_METRICS)[number]) => values.get(name) ?? null;
      return {
        views: v("views"),
        reach: v("reach"),
        likes: v("likes"),
        comments: v("comments"),
        shares: v("shares"),
        saves: v("saved"),
      };
    },
  };
}
