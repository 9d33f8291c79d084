/**
 * X OAuth 2.0: the authorization code grant (RFC 6749 section 4.1) with PKCE S256 (RFC 7636, required by
 * X), the refresh_token grant (X rotates refresh tokens: each refresh answers a new one and the old one
 * stops working, so the new one is returned for the engine to save), and the user behind the token.
 *
 * Endpoints (networks.md "OAuth endpoints" and 2.7; https://docs.x.com/fundamentals/authentication/oauth-2-0/
 * authorization-code, .../oauth-2-0/user-access-token, https://docs.x.com/x-api/users/get-my-user):
 * - browser: `https://x.com/i/oauth2/authorize?response_type=code&client_id&redirect_uri&scope&state
 *   &code_challenge&code_challenge_method=S256`;
 * - token: `POST https://api.x.com/2/oauth2/token` (form; confidential client: HTTP Basic
 *   `client_id:client_secret`) -> `{token_type, expires_in (7200 s), access_token, scope, refresh_token}`;
 *   errors `{error, error_description}`;
 * - account: `GET https://api.x.com/2/users/me?user.fields=profile_image_url` -> `{data:{id, name,
 *   username, profile_image_url}}`.
 */
import type { SocialHttp } from "../http.ts";
import {
  type Capabilities,
  type ClientCredentials,
  type NetworkAccount,
  NetworkAuthError,
  type NetworkOAuth,
  NetworkRateLimitError,
  type TokenSet,
} from "../network.ts";
import { requestToken } from "../oauth-token.ts";
import { X_API, xRateLimitWait, xRequest } from "./api.ts";

/** Scopes asked at consent, all required: post, upload media, read the user, and a refresh token. */
export const X_SCOPES = ["tweet.read", "tweet.write", "users.read", "offline.access", "media.write"] as const;

/** Text alone, up to 4 images, or one video (networks.md 2.7). */
export const X_CAPABILITIES: Capabilities = { text: true, image: true, carousel: true, video: true };

/** Access tokens live 2 hours; refreshing 15 minutes ahead leaves room for a slow worker pass. */
const REFRESH_AHEAD_SECONDS = 900;

/** The user as `GET /2/users/me` answers it. */
export interface XUser {
  id?: string;
  name?: string;
  username?: string;
  profile_image_url?: string;
}

/** The X OAuth of one app (`credentials` = the app's OAuth 2.0 client id and secret). */
export function xOAuth(credentials: ClientCredentials, http: SocialHttp, now: () => Date): NetworkOAuth {
  const token = (params: Record<string, string>): Promise<TokenSet> =>
    requestToken(http, now, {
      network: "X",
      url: `${X_API}/2/oauth2/token`,
      // X wants the client id in the body too.
      params: { ...params, client_id: credentials.clientId },
      credentials,
      clientAuth: "basic",
      rateLimited: (res) =>
        new NetworkRateLimitError("rate limited by X's token endpoint", xRateLimitWait(res.headers, now())),
    });

  return {
    pkce: true,
    requiredScopes: X_SCOPES,
    refreshAheadSeconds: REFRESH_AHEAD_SECONDS,
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      if (!codeChallenge) throw new Error("X requires PKCE: a code challenge is needed");
      const u = new URL("https://x.com/i/oauth2/authorize");
      u.searchParams.set("response_type", "code");
      u.searchParams.set("client_id", credentials.clientId);
      u.searchParams.set("redirect_uri", redirectUri);
      u.searchParams.set("scope", X_SCOPES.join(" "));
      u.searchParams.set("state", state);
      u.searchParams.set("code_challenge", codeChallenge);
      u.searchParams.set("code_challenge_method", "S256");
      return u.toString();
    },
    exchangeCode({ code, redirectUri, codeVerifier }) {
      if (!codeVerifier) throw new NetworkAuthError("X requires PKCE: the code verifier is missing");
      return token({
        code,
        grant_type: "authorization_code",
        redirect_uri: redirectUri,
        code_verifier: codeVerifier,
      });
    },
    async refresh(tokens) {
      if (!tokens.refreshToken) throw new NetworkAuthError("X gave no refresh token; reconnect the account");
      return token({ grant_type: "refresh_token", refresh_token: tokens.refreshToken });
    },
    async accounts(tokens): Promise<NetworkAccount[]> {
      const r = await xRequest<XUser>(
        http,
        {
          method: "GET",
          path: "/2/users/me",
          query: { "user.fields": "profile_image_url" },
          accessToken: tokens.accessToken,
        },
        now,
      );
      const user = r.data;
      if (!user?.id || !user.username) throw new NetworkAuthError("X returned no user for the token");
      return [
        {
          networkAccountId: user.id,
          handle: user.username,
          displayName: user.name,
          avatarUrl: user.profile_image_url,
          capabilities: X_CAPABILITIES,
          metadata: { username: user.username },
        },
      ];
    },
  };
}
