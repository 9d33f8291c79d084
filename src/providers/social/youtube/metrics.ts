/**
 * The YouTube counters for the analytics sync (NetworkMetrics, ../network.ts), from the Data API's public
 * statistics (networks.md 2.4; https://developers.google.com/youtube/v3/docs/channels#statistics,
 * https://developers.google.com/youtube/v3/docs/videos#statistics):
 * - account: `channels.list part=statistics id={channel}`: `subscriberCount` -> followers (null when the
 *   channel hides it, `hiddenSubscriberCount`), `viewCount` -> views; likes, comments and shares are not
 *   given per channel -> null;
 * - post: `videos.list part=statistics id={video}`: `viewCount` -> views, `likeCount` -> likes (absent when
 *   the owner hides likes -> null), `commentCount` -> comments (absent when comments are off -> null);
 *   shares, saves and reach are not in the Data API -> null.
 * Counts come as uint64 strings. 1 quota unit per call; a used-up quota waits for the next quota day.
 * Posts are read in batches: `videos.list` takes up to 50 comma-separated ids in one call (1 unit), so
 * `readPostMetricsBatch` reads up to `YOUTUBE_VIDEOS_PER_CALL` videos per call; a video YouTube leaves out
 * of the answer (deleted, no longer visible) maps to a NetworkRejectedError.
 */
import {
  type AdapterAccount,
  type MetricsPost,
  type NetworkMetrics,
  NetworkRejectedError,
  type PostBatchRead,
} from "../network.ts";
import type { PostCounters } from "../types.ts";
import { count, type YouTubeDeps, youtubeRequest } from "./api.ts";
import type { ChannelResource } from "./oauth.ts";

type ChannelStatistics = NonNullable<ChannelResource["statistics"]>;
type VideoStatistics = { viewCount?: string; likeCount?: string; commentCount?: string };

/** The most ids `videos.list` takes in its `id` parameter (https://developers.google.com/youtube/v3/docs/videos/list). */
export const YOUTUBE_VIDEOS_PER_CALL = 50;

/** A video's counters from its `statistics` (see the module comment). */
const videoCounters = (s: VideoStatistics): PostCounters => ({
  views: count(s.viewCount),
  reach: null,
  likes: count(s.likeCount),
  comments: count(s.commentCount),
  shares: null,
  saves: null,
});

const notListed = (id: string) =>
  new NetworkRejectedError(
    `YouTube no longer lists the video ${id} (deleted, or no longer visible to the channel)`,
  );

/** The YouTube metrics; requests go through `deps.http`. */
export function youtubeMetrics(deps: YouTubeDeps): NetworkMetrics {
  /** `{resource}.list part=statistics id={ids}`: the statistics by id (an id YouTube does not list is absent). */
  const statistics = async <S>(
    account: AdapterAccount,
    resource: "channels" | "videos",
    ids: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<Map<string, S>> => {
    const r = await youtubeRequest<{ items?: Array<{ id?: string; statistics?: S }> }>(deps, {
      method: "GET",
      path: `/${resource}`,
      query: { part: "statistics", id: ids.join(",") },
      accessToken: account.tokens.accessToken,
      signal,
    });
    const out = new Map<string, S>();
    for (const item of r.body?.items ?? []) if (item.id && item.statistics) out.set(item.id, item.statistics);
    return out;
  };
  /** One `videos.list` call for up to 50 posts. */
  const readPostMetricsBatch = async (
    account: AdapterAccount,
    posts: readonly MetricsPost[],
    signal?: AbortSignal,
  ): Promise<PostBatchRead> => {
    if (posts.length > YOUTUBE_VIDEOS_PER_CALL)
      throw new RangeError(`videos.list takes at most ${YOUTUBE_VIDEOS_PER_CALL} ids, not ${posts.length}`);
    const ids = posts.map((p) => p.networkPostId);
    const found = await statistics<VideoStatistics>(account, "videos", ids, signal);
    return new Map<string, PostCounters | NetworkRejectedError>(
      ids.map((id) => [id, found.has(id) ? videoCounters(found.get(id)!) : notListed(id)]),
    );
  };
  return {
    async account(account, signal) {
      const channels = await statistics<ChannelStatistics>(
        account,
        "channels",
        [account.networkAccountId],
        signal,
      );
      const s = channels.get(account.networkAccountId);
      if (!s)
        throw new NetworkRejectedError(`YouTube no longer lists the channel ${account.networkAccountId}`);
      return {
        followers: s.hiddenSubscriberCount ? null : count(s.subscriberCount),
        views: count(s.viewCount),
        likes: null,
        comments: null,
        shares: null,
      };
    },
    async post(account, post, signal) {
      const read = (await readPostMetricsBatch(account, [post], signal)).get(post.networkPostId);
      if (!read || read instanceof Error) throw read ?? notListed(post.networkPostId);
      return read;
    },
    postBatchSize: YOUTUBE_VIDEOS_PER_CALL,
    readPostMetricsBatch,
  };
}
