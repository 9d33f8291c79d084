/**
 * Pinterest OAuth (API v5): the authorization code grant (RFC 6749 section 4.1; no PKCE), the token
 * endpoint with the app's credentials by HTTP Basic, continuous refresh tokens, and the Pinterest account
 * behind the token (networks.md 2.6 and "OAuth endpoints";
 * https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/,
 * https://developers.pinterest.com/docs/api/v5/oauth-token, https://developers.pinterest.com/docs/api/v5/user_account-get).
 *
 * - browser: `https://www.pinterest.com/oauth/?client_id&redirect_uri&response_type=code&scope&state`, the
 *   scopes comma-separated;
 * - code and refresh: `POST https://api.pinterest.com/v5/oauth/token` (form, `Authorization: Basic
 *   base64(client_id:client_secret)`) -> `{access_token, expires_in, refresh_token,
 *   refresh_token_expires_in, scope}`. The access token lives 30 days; the refresh token is a continuous
 *   refresh token (60 days, a new one with every refresh; `continuous_refresh=true` is sent for apps created
 *   before 2025-09-25, where it is not yet the default);
 * - account: `GET /v5/user_account` -> `{id, username, profile_image, account_type, business_name}`.
 * Token endpoint errors come as `{code, message}` (or the OAuth `{error, error_description}`); both are read.
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
import { PINTEREST_API, pinterestRequest } from "./api.ts";
import { BOARD_SETTING, listBoards } from "./boards.ts";

/** Scopes asked at consent (networks.md 2.6). */
export const PINTEREST_SCOPES = [
  "boards:read",
  "boards:write",
  "pins:read",
  "pins:write",
  "user_accounts:read",
] as const;
/** Scopes without which the account cannot publish or be read (boards:write is asked, never used). */
export const PINTEREST_REQUIRED_SCOPES = [
  "boards:read",
  "pins:read",
  "pins:write",
  "user_accounts:read",
] as const;

export const PINTEREST_CAPABILITIES: Capabilities = { text: false, image: true, carousel: true, video: true };

/** The Pinterest OAuth of one app (`credentials` = app id and app secret); requests go through `http`. */
export function pinterestOAuth(
  credentials: ClientCredentials,
  http: SocialHttp,
  now: () => Date,
): NetworkOAuth {
  const token = (params: Record<string, string>, previousScopes?: string[]): Promise<TokenSet> =>
    requestToken(http, now, {
      network: "Pinterest",
      url: `${PINTEREST_API}/oauth/token`,
      params,
      credentials,
      clientAuth: "basic",
      headers: { accept: "application/json" },
      previousScopes,
    });

  return {
    pkce: false,
    requiredScopes: PINTEREST_REQUIRED_SCOPES,
    // The access token lives 30 days: refreshing a week ahead leaves room for outages.
    refreshAheadSeconds: 7 * 86_400,
    authorizeUrl({ state, redirectUri }) {
      const u = new URL("https://www.pinterest.com/oauth/");
      u.searchParams.set("client_id", credentials.clientId);
      u.searchParams.set("redirect_uri", redirectUri);
      u.searchParams.set("response_type", "code");
      u.searchParams.set("scope", PINTEREST_SCOPES.join(","));
      u.searchParams.set("state", state);
      return u.toString();
    },
    exchangeCode({ code, redirectUri }) {
      return token({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        continuous_refresh: "true",
      });
    },
    async refresh(tokens) {
      if (!tokens.refreshToken)
        throw new NetworkAuthError("Pinterest gave no refresh token; reconnect the account");
      return token({ grant_type: "refresh_token", refresh_token: tokens.refreshToken }, tokens.scopes);
    },
    async accounts(tokens): Promise<NetworkAccount[]> {
      const me = await pinterestRequest<{
        id?: string;
        username?: string;
        profile_image?: string;
        account_type?: string;
        business_name?: string | null;
      }>(http, { method: "GET", path: "/user_account", accessToken: tokens.accessToken });
      if (!me.username) throw new NetworkAuthError("Pinterest returned no account for the token");
      // With exactly one board, that board is the account's board until the user picks another.
      let settings: Record<string, string> | undefined;
      try {
        const boards = await listBoards(http, tokens.accessToken);
        if (boards.length === 1) settings = { [BOARD_SETTING]: boards[0]!.id };
      } catch {
        settings = undefined;
      }
      return [
        {
          networkAccountId: me.id || me.username,
          handle: me.username,
          displayName: me.business_name || me.username,
          avatarUrl: me.profile_image,
          capabilities: PINTEREST_CAPABILITIES,
          metadata: { accountType: me.account_type ?? null },
          settings,
        },
      ];
    },
  };
}
