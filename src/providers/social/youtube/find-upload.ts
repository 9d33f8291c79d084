/**
 * Looking for a video among a channel's recent uploads, for a delivery whose upload session closed after
 * its final chunk was sent but before the video id came back: the channel's uploads playlist
 * (`channels.list part=contentDetails` -> `contentDetails.relatedPlaylists.uploads`), then its newest items
 * (`playlistItems.list part=snippet,contentDetails`, 1 quota unit each; `search.list` is avoided: 100 units
 * and its own daily bucket). Sources: https://developers.google.com/youtube/v3/docs/channels/list,
 * https://developers.google.com/youtube/v3/docs/playlistItems/list.
 */
import type { AdapterAccount } from "../network.ts";
import { type YouTubeDeps, youtubeRequest } from "./api.ts";
import type { ChannelResource } from "./oauth.ts";

/** How many of the newest uploads are looked at. */
const RECENT_UPLOADS = 50;
/** Clock skew allowed between the service and YouTube when comparing times, seconds. */
const SKEW_SECONDS = 300;

interface PlaylistItem {
  snippet?: {
    title?: string;
    description?: string;
    publishedAt?: string;
    resourceId?: { kind?: string; videoId?: string };
  };
  contentDetails?: { videoId?: string };
}

/**
 * The id of the one upload of `account`'s channel with exactly `title` (and, when several have it, exactly
 * `description`) added at or after `since`; undefined when none or more than one matches.
 * @throws the errors of `youtubeRequest` (read calls: a quota answer waits for the next quota day).
 */
export async function findRecentUpload(
  deps: YouTubeDeps,
  account: AdapterAccount,
  match: { title: string; description: string; since: Date },
  signal?: AbortSignal,
): Promise<string | undefined> {
  const accessToken = account.tokens.accessToken;
  const channel = await youtubeRequest<{ items?: ChannelResource[] }>(deps, {
    method: "GET",
    path: "/channels",
    query: { part: "contentDetails", id: account.networkAccountId },
    accessToken,
    signal,
  });
  const playlistId = channel.body?.items?.[0]?.contentDetails?.relatedPlaylists?.uploads;
  if (!playlistId) return undefined;
  const list = await youtubeRequest<{ items?: PlaylistItem[] }>(deps, {
    method: "GET",
    path: "/playlistItems",
    query: { part: "snippet,contentDetails", playlistId, maxResults: String(RECENT_UPLOADS) },
    accessToken,
    signal,
  });
  const after = match.since.getTime() - SKEW_SECONDS * 1000;
  let found = (list.body?.items ?? []).filter(
    (i) => i.snippet?.title === match.title && Date.parse(i.snippet?.publishedAt ?? "") >= after,
  );
  if (found.length > 1) found = found.filter((i) => (i.snippet?.description ?? "") === match.description);
  if (found.length !== 1) return undefined;
  const item = found[0]!;
  return item.contentDetails?.videoId ?? item.snippet?.resourceId?.videoId;
}
