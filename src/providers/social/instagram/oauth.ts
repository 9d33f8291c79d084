/**
 * Instagram API with Instagram Login: the connect flow of Instagram's table (./table.ts, read by
 * ../oauth-flow.ts), with Instagram's own exchange of the 1-hour token for a 60-day long-lived token, its
 * refresh, and the professional account behind the token.
 *
 * Endpoints (networks.md "OAuth endpoints"; https://developers.facebook.com/docs/instagram-platform/
 * instagram-api-with-instagram-login/business-login):
 * - browser: `https://www.instagram.com/oauth/authorize?client_id&redirect_uri&response_type=code&scope&state`;
 * - code: `POST https://api.instagram.com/oauth/access_token` (form) -> `{access_token, user_id, permissions}`
 *   (some doc pages wrap it in `data: [...]`; both are read; `user_id` is a JSON number beyond 2^53, so the
 *   account id is taken as a string from `GET /me?fields=user_id,username` instead);
 * - long-lived: `GET https://graph.instagram.com/access_token?grant_type=ig_exchange_token`;
 * - refresh: `GET https://graph.instagram.com/refresh_access_token?grant_type=ig_refresh_token` (token at
 *   least 24 h old, not expired; 60 days again).
 */
import { GRAPH_VERSION, graphRequest } from "../facebook/graph.ts";
import {
  type ClientCredentials,
  type NetworkAccount,
  NetworkAuthError,
  NetworkTransientError,
  type TokenSet,
} from "../network.ts";
import { expiresAt, parseJson, safeMessage, splitScopes } from "../network-text.ts";
import type { OAuthDeps, OAuthParts } from "../oauth-flow.ts";
import { INSTAGRAM_CAPABILITIES, INSTAGRAM_GRAPH } from "./table.ts";

export { INSTAGRAM_CAPABILITIES };

/**
 * The parts of Instagram Login its table cannot say: Instagram's own code exchange (then the long-lived
 * token), its refresh (`ig_refresh_token`) and the professional account.
 */
export function instagramOAuthParts(credentials: ClientCredentials, { http, now }: OAuthDeps): OAuthParts {
  return {
    async exchangeCode({ code, redirectUri }) {
      const form = new URLSearchParams({
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        grant_type: "authorization_code",
        redirect_uri: redirectUri,
        code,
      });
      let res: Response;
      let raw: string;
      try {
        res = await http.fetch("https://api.instagram.com/oauth/access_token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form.toString(),
        });
        raw = await res.text();
      } catch (err) {
        throw new NetworkTransientError(
          `Instagram did not answer the code exchange (${(err as Error).name})`,
        );
      }
      const body = parseJson(raw) as {
        access_token?: string;
        permissions?: string | string[];
        data?: Array<{ access_token?: string; permissions?: string | string[] }>;
        error_message?: string;
        error?: { message?: string };
      };
      const flat = body?.data?.[0] ?? body;
      if (!res.ok || !flat?.access_token) {
        if (res.status >= 500)
          throw new NetworkTransientError(`Instagram failed the code exchange (HTTP ${res.status})`);
        const why = body?.error_message ?? body?.error?.message ?? `HTTP ${res.status}`;
        throw new NetworkAuthError(`Instagram refused the authorization code: ${safeMessage(why)}`);
      }
      const permissions = Array.isArray(flat.permissions) ? flat.permissions : splitScopes(flat.permissions);
      const long = await graphRequest<{ access_token: string; expires_in?: number }>(http, {
        method: "GET",
        url: `${INSTAGRAM_GRAPH}/access_token`,
        // The token endpoints take the token as the documented `access_token` parameter.
        params: {
          grant_type: "ig_exchange_token",
          client_secret: credentials.clientSecret,
          access_token: flat.access_token,
        },
      });
      return {
        accessToken: long.body.access_token,
        expiresAt: expiresAt(now(), long.body.expires_in),
        scopes: permissions,
      };
    },

    async refresh(tokens: TokenSet) {
      const r = await graphRequest<{ access_token: string; expires_in?: number }>(http, {
        method: "GET",
        url: `${INSTAGRAM_GRAPH}/refresh_access_token`,
        params: { grant_type: "ig_refresh_token", access_token: tokens.accessToken },
      });
      return {
        accessToken: r.body.access_token,
        expiresAt: expiresAt(now(), r.body.expires_in),
        scopes: tokens.scopes,
      };
    },

    async accounts(tokens: TokenSet): Promise<NetworkAccount[]> {
      const me = await graphRequest<{ username?: string; name?: string; profile_picture_url?: string }>(
        http,
        {
          method: "GET",
          url: `${INSTAGRAM_GRAPH}/${GRAPH_VERSION}/me`,
          params: { fields: "user_id,username,name,profile_picture_url,account_type" },
          accessToken: tokens.accessToken,
        },
      );
      const userId = rawStringField(me.raw, "user_id");
      if (!userId || !me.body.username)
        throw new NetworkAuthError("Instagram returned no professional account");
      return [
        {
          networkAccountId: userId,
          handle: me.body.username,
          displayName: me.body.name,
          avatarUrl: me.body.profile_picture_url,
          capabilities: INSTAGRAM_CAPABILITIES,
        },
      ];
    },
  };
}

/**
 * The value of `"name": <number or string>` in raw JSON text as a string (ids beyond 2^53 lose digits when
 * parsed as JavaScript numbers).
 */
export function rawStringField(raw: string, name: string): string | undefined {
  const m = new RegExp(`"${name}"\\s*:\\s*(?:"([^"]*)"|(-?\\d+))`).exec(raw);
  return m ? (m[1] ?? m[2]) : undefined;
}
