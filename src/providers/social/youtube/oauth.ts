/**
 * Google OAuth 2.0 for the YouTube Data API: the flow of YouTube's table (./table.ts, read by
 * ../oauth-flow.ts: authorization code grant with PKCE S256, `access_type=offline` and `prompt=consent` so
 * that Google issues a refresh token; code and refresh at `POST https://oauth2.googleapis.com/token` ->
 * `{access_token, expires_in (3599 s), refresh_token?, scope (space-separated URLs), token_type}`; errors
 * `{error, error_description}`, `invalid_grant`: used/expired code, revoked refresh token) and the channels
 * behind the token (https://developers.google.com/youtube/v3/docs/channels/list).
 *
 * Google answers a refresh without a new `refresh_token` (and omits it on some reconnects too): the stored
 * one is kept (the refresh returns it again; src/domain/social/accounts.ts `tokenColumns` keeps the stored one
 * whenever none is given). Accounts: `GET https://www.googleapis.com/youtube/v3/channels?part=snippet,
 * statistics&mine=true`, one account per channel (a Google account without a channel has none: nothing can be
 * connected).
 */
import type { NetworkAccount } from "../network.ts";
import type { OAuthDeps, OAuthParts } from "../oauth-flow.ts";
import { youtubeRequest } from "./api.ts";
import { YOUTUBE_CAPABILITIES } from "./table.ts";

export { YOUTUBE_CAPABILITIES };

/** A channel as `channels.list` returns it (the parts this adapter reads). */
export interface ChannelResource {
  id?: string;
  snippet?: {
    title?: string;
    customUrl?: string;
    thumbnails?: Record<string, { url?: string }>;
  };
  statistics?: {
    viewCount?: string;
    subscriberCount?: string;
    hiddenSubscriberCount?: boolean;
    videoCount?: string;
  };
  contentDetails?: { relatedPlaylists?: { uploads?: string } };
}

/** The parts of the Google OAuth its table cannot say: the channels behind the token. */
export function youtubeOAuthParts(deps: OAuthDeps): OAuthParts {
  return {
    async accounts(tokens): Promise<NetworkAccount[]> {
      const r = await youtubeRequest<{ items?: ChannelResource[] }>(deps, {
        method: "GET",
        path: "/channels",
        query: { part: "snippet,statistics", mine: "true", maxResults: "50" },
        accessToken: tokens.accessToken,
      });
      return (r.body?.items ?? [])
        .filter((c): c is ChannelResource & { id: string } => typeof c.id === "string" && c.id !== "")
        .map((c) => {
          const handle = (c.snippet?.customUrl ?? "").replace(/^@/, "");
          return {
            networkAccountId: c.id,
            handle: handle || c.snippet?.title || c.id,
            displayName: c.snippet?.title,
            avatarUrl: c.snippet?.thumbnails?.default?.url,
            capabilities: YOUTUBE_CAPABILITIES,
            metadata: { customUrl: c.snippet?.customUrl ?? null },
          };
        });
    },
  };
}
