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
 */
import { type AdapterAccount, type NetworkMetrics, NetworkRejectedError } from "../network.ts";
import { count, type YouTubeDeps, youtubeRequest } from "./api.ts";
import type { ChannelResource } from "./oauth.ts";

type ChannelStatistics = NonNullable<ChannelResource["statistics"]>;
type VideoStatistics = { viewCount?: string; likeCount?: string; commentCount?: string };

/** The YouTube metrics; requests go through `deps.http`. */
export function youtubeMetrics(deps: YouTubeDeps): NetworkMetrics {
  /** `{resource}.list part=statistics id={id}`: the statistics, or undefined when YouTube lists no such item. */
  const statistics = async <S>(
    account: AdapterAccount,
    resource: "channels" | "videos",
    id: string,
    signal: AbortSignal | undefined,
  ): Promise<S | undefined> => {
    const r = await youtubeRequest<{ items?: Array<{ statistics?: S }> }>(deps, {
      method: "GET",
      path: `/${resource}`,
      query: { part: "statistics", id },
      accessToken: account.tokens.accessToken,
      signal,
    });
    return r.body?.items?.[0]?.statistics;
  };
  return {
    async account(account, signal) {
      const s = await statistics<ChannelStatistics>(account, "channels", account.networkAccountId, signal);
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
      const s = await statistics<VideoStatistics>(account, "videos", post.networkPostId, signal);
      if (!s)
        throw new NetworkRejectedError(
          `YouTube no longer lists the video ${post.networkPostId} (deleted, or no longer visible to the channel)`,
        );
      return {
        views: count(s.viewCount),
        reach: null,
        likes: count(s.likeCount),
        comments: count(s.commentCount),
        shares: null,
        saves: null,
      };
    },
  };
}
