/**
 * TikTok counters for the analytics sync (`NetworkMetrics`, ../network.ts; service spec 2.7 analytics rules,
 * 6.3), through the consumer Display API (networks.md 2.1 "Analytics"):
 * - account: `GET /v2/user/info/?fields=follower_count,likes_count,video_count` (scope `user.info.stats`)
 *   -> followers = `follower_count`, likes = `likes_count` (likes received on the creator's videos)
 *   (https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info). Views, comments and shares of the
 *   whole account are not given: null.
 * - post: `POST /v2/video/query/?fields=id,view_count,like_count,comment_count,share_count` with
 *   `{filters: {video_ids: [...]}}`, up to `TIKTOK_VIDEOS_PER_CALL` (20) ids in one call (`readPostMetricsBatch`; scope `video.list`; https://developers.tiktok.com/doc/tiktok-api-v2-video-query)
 *   for the public post id the publisher saved (`publicaly_available_post_id`, ./publisher.ts) -> views,
 *   likes, comments, shares. Reach and saves are not in the Display API (the Business API has them): null.
 *   A delivery recorded without a public id (SELF_ONLY, or the id did not come within the publisher's
 *   patience; `postUrlKind: "profile"`, its network id is then the `publish_id`) is never queried as a video
 *   id: every counter null, no call. `resolvePublicPost` asks `POST /v2/post/publish/status/fetch/` for
 *   such a post's `publicaly_available_post_id`
 *   (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status), so the sync picks
 *   up the real id once TikTok reports it. A video the query does not return (deleted, made private) is
 *   refused with a reason; its saved values stay.
 * Errors: as ./api.ts maps them (`access_token_invalid` -> NetworkAuthError, 429 -> NetworkRateLimitError).
 */
import type { SocialHttp } from "../http.ts";
import {
  type AdapterAccount,
  type MetricsPost,
  NO_POST_COUNTERS,
  type NetworkMetrics,
  NetworkRejectedError,
  type PostBatchRead,
  requireMetricsScopes,
} from "../network.ts";
import { rawIdList, tiktokRequest } from "./api.ts";
import { tiktokPostUrl } from "./publisher.ts";

/** Scope of the account counters. */
export const TIKTOK_STATS_SCOPE = "user.info.stats";
/** Scope of the video counters. */
export const TIKTOK_VIDEO_LIST_SCOPE = "video.list";
/**
 * The most ids `/v2/video/query/` takes in `filters.video_ids` (https://developers.tiktok.com/doc/tiktok-api-v2-video-query;
 * docs/spec/networks.md 2.1: "max 20 ids").
 */
export const TIKTOK_VIDEOS_PER_CALL = 20;

const count = (v: unknown): number | null => (typeof v === "number" && v >= 0 ? v : null);

/** The TikTok metrics reader; requests go through `http` (../http.ts). */
export function tiktokMetrics(http: SocialHttp): NetworkMetrics {
  /** One `POST /v2/video/query/` for the posts with a public id (at most 20); the others all null. */
  const readPostMetricsBatch = async (
    account: AdapterAccount,
    posts: readonly MetricsPost[],
    signal?: AbortSignal,
  ): Promise<PostBatchRead> => {
    if (posts.length > TIKTOK_VIDEOS_PER_CALL)
      throw new RangeError(
        `/v2/video/query/ takes at most ${TIKTOK_VIDEOS_PER_CALL} ids, not ${posts.length}`,
      );
    const out: PostBatchRead = new Map();
    const ids: string[] = [];
    for (const p of posts) {
      if (p.postUrlKind === "profile" || p.networkPostId === p.networkIds.publishId)
        out.set(p.networkPostId, { ...NO_POST_COUNTERS });
      else ids.push(p.networkPostId);
    }
    if (ids.length === 0) return out;
    requireMetricsScopes(account, [TIKTOK_VIDEO_LIST_SCOPE]);
    const r = await tiktokRequest<{ videos?: Array<Record<string, unknown>> }>(http, {
      method: "POST",
      path: "/v2/video/query/",
      query: { fields: "id,view_count,like_count,comment_count,share_count" },
      json: { filters: { video_ids: ids } },
      accessToken: account.tokens.accessToken,
      signal,
    });
    // TikTok returns only the creator's own videos among the ids.
    const found = new Map((r.data.videos ?? []).map((v) => [String(v.id), v]));
    for (const id of ids) {
      const video = found.get(id);
      out.set(
        id,
        video
          ? {
              views: count(video.view_count),
              reach: null,
              likes: count(video.like_count),
              comments: count(video.comment_count),
              shares: count(video.share_count),
              saves: null,
            }
          : new NetworkRejectedError(
              "TikTok did not return this post (deleted, private or not this account's)",
            ),
      );
    }
    return out;
  };
  return {
    async account(account, signal) {
      requireMetricsScopes(account, [TIKTOK_STATS_SCOPE]);
      const r = await tiktokRequest<{ user?: { follower_count?: unknown; likes_count?: unknown } }>(http, {
        method: "GET",
        path: "/v2/user/info/",
        query: { fields: "follower_count,likes_count,video_count" },
        accessToken: account.tokens.accessToken,
        signal,
      });
      const user = r.data.user ?? {};
      return {
        followers: count(user.follower_count),
        views: null,
        likes: count(user.likes_count),
        comments: null,
        shares: null,
      };
    },

    async post(account, post, signal) {
      const read = (await readPostMetricsBatch(account, [post], signal)).get(post.networkPostId);
      if (!read || read instanceof Error)
        throw read ?? new NetworkRejectedError("TikTok did not return this post");
      return read;
    },
    postBatchSize: TIKTOK_VIDEOS_PER_CALL,
    readPostMetricsBatch,

    async resolvePublicPost(account, post, signal) {
      const publishId = post.networkIds.publishId;
      if (typeof publishId !== "string" || publishId === "") return undefined;
      const r = await tiktokRequest<{ status?: string }>(http, {
        method: "POST",
        path: "/v2/post/publish/status/fetch/",
        json: { publish_id: publishId },
        accessToken: account.tokens.accessToken,
        signal,
      });
      const postId = rawIdList(r.raw, "publicaly_available_post_id")[0];
      if (r.data.status !== "PUBLISH_COMPLETE" || !postId) return undefined;
      const kind = post.type === "video" ? "video" : "photo";
      return { networkPostId: postId, postUrl: tiktokPostUrl(account, kind, postId) };
    },
  };
}
