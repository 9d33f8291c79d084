/**
 * Google OAuth 2.0 for the YouTube Data API: the authorization code grant for web server apps (RFC 6749
 * section 4.1) with PKCE S256 (RFC 7636), `access_type=offline` and `prompt=consent` so that Google issues a
 * refresh token, the refresh grant, and the channel behind the token (networks.md 2.4 and "OAuth endpoints";
 * https://developers.google.com/identity/protocols/oauth2/web-server,
 * https://developers.google.com/youtube/v3/docs/channels/list).
 *
 * - browser: `https://accounts.google.com/o/oauth2/v2/auth?client_id&redirect_uri&response_type=code&scope
 *   &access_type=offline&prompt=consent&state&code_challenge&code_challenge_method=S256`;
 * - token: `POST https://oauth2.googleapis.com/token` (form) -> `{access_token, expires_in (3599 s),
 *   refresh_token?, scope (space-separated URLs), token_type}`; errors `{error, error_description}`
 *   (`invalid_grant`: used/expired code, revoked refresh token);
 * - refresh: the same endpoint with `grant_type=refresh_token`. Google answers without a new
 *   `refresh_token` (and omits it on some reconnects too): the stored one is kept (this adapter returns it
 *   again; src/domain/social/accounts.ts `tokenColumns` keeps the stored one whenever none is given).
 * - accounts: `GET https://www.googleapis.com/youtube/v3/channels?part=snippet,statistics&mine=true`, one
 *   account per channel (a Google account without a channel has none: nothing can be connected).
 */
import type { SocialHttp } from "../http.ts";
import {
  type Capabilities,
  type ClientCredentials,
  type NetworkAccount,
  NetworkAuthError,
  type NetworkOAuth,
  type TokenSet,
} from "../network.ts";
import { requestToken } from "../oauth-token.ts";
import { YT_DATA_API, youtubeRequest } from "./api.ts";

export const GOOGLE_AUTHORIZE_URL = "https://accounts.google.com/o/oauth2/v2/auth";
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

export const YOUTUBE_UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload";
export const YOUTUBE_READONLY_SCOPE = "https://www.googleapis.com/auth/youtube.readonly";
/** Upload videos; read the channel, the uploads and the statistics. Both are needed to publish. */
export const YOUTUBE_SCOPES = [YOUTUBE_UPLOAD_SCOPE, YOUTUBE_READONLY_SCOPE] as const;

/** YouTube publishes videos only (Shorts or regular videos). */
export const YOUTUBE_CAPABILITIES: Capabilities = { text: false, image: false, carousel: false, video: true };

/** Google access tokens live an hour: refreshed in the last 5 minutes (the refresh pass runs every minute). */
export const YOUTUBE_REFRESH_AHEAD_SECONDS = 300;

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

/**
 * The Google OAuth of one Google Cloud OAuth client (`credentials` = client id and client secret);
 * requests go through `http` (../http.ts), `now` is the service clock.
 */
export function youtubeOAuth(
  credentials: ClientCredentials,
  http: SocialHttp,
  now: () => Date,
): NetworkOAuth {
  const token = (params: Record<string, string>): Promise<TokenSet> =>
    requestToken(http, now, {
      network: "Google",
      url: GOOGLE_TOKEN_URL,
      params,
      credentials,
      clientAuth: "body",
    });

  return {
    pkce: true,
    requiredScopes: YOUTUBE_SCOPES,
    refreshAheadSeconds: YOUTUBE_REFRESH_AHEAD_SECONDS,
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      const u = new URL(GOOGLE_AUTHORIZE_URL);
      u.searchParams.set("client_id", credentials.clientId);
      u.searchParams.set("redirect_uri", redirectUri);
      u.searchParams.set("response_type", "code");
      u.searchParams.set("scope", YOUTUBE_SCOPES.join(" "));
      u.searchParams.set("access_type", "offline");
      u.searchParams.set("prompt", "consent");
      u.searchParams.set("state", state);
      if (codeChallenge) {
        u.searchParams.set("code_challenge", codeChallenge);
        u.searchParams.set("code_challenge_method", "S256");
      }
      return u.toString();
    },
    exchangeCode({ code, redirectUri, codeVerifier }) {
      return token({
        code,
        grant_type: "authorization_code",
        redirect_uri: redirectUri,
        ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
      });
    },
    async refresh(tokens) {
      if (!tokens.refreshToken)
        throw new NetworkAuthError("Google gave no refresh token for this account; reconnect it");
      const next = await token({ grant_type: "refresh_token", refresh_token: tokens.refreshToken });
      // Google does not rotate refresh tokens: keep the one we have.
      return { ...next, refreshToken: next.refreshToken ?? tokens.refreshToken };
    },
    async accounts(tokens): Promise<NetworkAccount[]> {
      const r = await youtubeRequest<{ items?: ChannelResource[] }>(
        { http, now },
        {
          method: "GET",
          url: `${YT_DATA_API}/channels`,
          query: { part: "snippet,statistics", mine: "true", maxResults: "50" },
          accessToken: tokens.accessToken,
        },
      );
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
