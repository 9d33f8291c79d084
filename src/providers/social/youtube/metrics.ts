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
import { type NetworkMetrics, NetworkRejectedError } from "../network.ts";
import { count, type YouTubeDeps, YT_DATA_API, youtubeRequest } from "./api.ts";
import type { ChannelResource } from "./oauth.ts";

interface VideoStatistics {
  id?: string;
  statistics?: { viewCount?: string; likeCount?: string; commentCount?: string };
}

/** The YouTube metrics; requests go through `deps.http`. */
export function youtubeMetrics(deps: YouTubeDeps): NetworkMetrics {
  return {
    async account(account, signal) {
      const r = await youtubeRequest<{ items?: ChannelResource[] }>(deps, {
        method: "GET",
        url: `${YT_DATA_API}/channels`,
        query: { part: "statistics", id: account.networkAccountId },
        accessToken: account.tokens.accessToken,
        signal,
      });
      const s = r.body?.items?.[0]?.statistics;
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
      const r = await youtubeRequest<{ items?: VideoStatistics[] }>(deps, {
        method: "GET",
        url: `${YT_DATA_API}/videos`,
        query: { part: "statistics", id: post.networkPostId },
        accessToken: account.tokens.accessToken,
        signal,
      });
      const s = r.body?.items?.[0]?.statistics;
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
