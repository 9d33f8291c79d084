/**
 * TikTok Login Kit (OAuth v2) for the Content Posting API: authorization code grant (RFC 6749 section 4.1)
 * with TikTok's `client_key` parameter, the 24-hour access token and its refresh (refresh token about 365
 * days), and the creator behind the token (networks.md 2.1 and "OAuth endpoints";
 * https://developers.tiktok.com/doc/login-kit-web, .../doc/oauth-user-access-token-management,
 * .../doc/tiktok-api-v2-get-user-info).
 * Token endpoint errors come as `{error, error_description, log_id}`.
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
import { TIKTOK_API, tiktokRequest } from "./api.ts";

/**
 * Scopes asked at consent; `user.info.profile` gives the username used in post URLs, `user.info.stats` and
 * `video.list` the counters of the analytics sync (./metrics.ts).
 */
export const TIKTOK_SCOPES = [
  "user.info.basic",
  "user.info.profile",
  "user.info.stats",
  "video.list",
  "video.publish",
] as const;
/** Scopes without which the account cannot publish (Direct Post). */
export const TIKTOK_REQUIRED_SCOPES = ["user.info.basic", "video.publish"] as const;

export const TIKTOK_CAPABILITIES: Capabilities = { text: false, image: true, carousel: true, video: true };

/**
 * The TikTok OAuth of one app (`credentials.clientId` is TikTok's client key);
 * requests go through `http` (../http.ts).
 */
export function tiktokOAuth(credentials: ClientCredentials, http: SocialHttp, now: () => Date): NetworkOAuth {
  const token = (params: Record<string, string>): Promise<TokenSet> =>
    requestToken(http, now, {
      network: "TikTok",
      url: `${TIKTOK_API}/v2/oauth/token/`,
      params,
      credentials,
      clientAuth: "body",
      clientIdParam: "client_key",
      headers: { "cache-control": "no-cache" },
    });

  return {
    pkce: false,
    requiredScopes: TIKTOK_REQUIRED_SCOPES,
    refreshAheadSeconds: 3600,
    authorizeUrl({ state, redirectUri }) {
      const u = new URL("https://www.tiktok.com/v2/auth/authorize/");
      u.searchParams.set("client_key", credentials.clientId);
      u.searchParams.set("response_type", "code");
      u.searchParams.set("scope", TIKTOK_SCOPES.join(","));
      u.searchParams.set("redirect_uri", redirectUri);
      u.searchParams.set("state", state);
      return u.toString();
    },
    exchangeCode({ code, redirectUri }) {
      return token({ code, grant_type: "authorization_code", redirect_uri: redirectUri });
    },
    async refresh(tokens) {
      if (!tokens.refreshToken)
        throw new NetworkAuthError("TikTok gave no refresh token; reconnect the account");
      const next = await token({ grant_type: "refresh_token", refresh_token: tokens.refreshToken });
      return next;
    },
    async accounts(tokens): Promise<NetworkAccount[]> {
      const profile = tokens.scopes.includes("user.info.profile");
      const fields = ["open_id", "avatar_url", "display_name", ...(profile ? ["username"] : [])].join(",");
      const r = await tiktokRequest<{
        user?: { open_id?: string; avatar_url?: string; display_name?: string; username?: string };
      }>(http, { method: "GET", path: "/v2/user/info/", query: { fields }, accessToken: tokens.accessToken });
      const user = r.data.user;
      if (!user?.open_id) throw new NetworkAuthError("TikTok returned no creator for the token");
      return [
        {
          networkAccountId: user.open_id,
          handle: user.username ?? user.display_name ?? user.open_id,
          displayName: user.display_name,
          avatarUrl: user.avatar_url,
          capabilities: TIKTOK_CAPABILITIES,
          metadata: { username: user.username ?? null },
        },
      ];
    },
  };
}
