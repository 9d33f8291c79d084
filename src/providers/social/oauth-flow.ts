/**
 * The OAuth 2.0 connect flow of a live adapter, built from its network's table (./network-table.ts
 * `OAuthTable`): the authorize URL (RFC 6749 section 4.1.1, PKCE S256 of RFC 7636 section 4.3), the code
 * exchange (section 4.1.3) and the `refresh_token` grant (section 6) through the shared token request of
 * ./oauth-token.ts. The adapter adds what its table cannot say: the accounts behind a token, and for
 * Instagram and Facebook their own exchange and refresh.
 */
import { rateLimitWait } from "./api-errors.ts";
import type { SocialHttp } from "./http.ts";
import type { NetworkTable } from "./network-table.ts";
import {
  type ClientCredentials,
  type NetworkAccount,
  NetworkAuthError,
  type NetworkOAuth,
  NetworkRateLimitError,
  type TokenSet,
} from "./network.ts";
import { requestToken } from "./oauth-token.ts";

/** What the flow's token requests need: the adapter's outbound HTTP and the service clock. */
export interface OAuthDeps {
  http: SocialHttp;
  now(): Date;
}

/** The parts of a network's flow its table cannot describe. */
export interface OAuthParts {
  /** The publishable accounts behind the tokens (see `NetworkOAuth.accounts`). */
  accounts(tokens: TokenSet): Promise<NetworkAccount[]>;
  /** The network's own code exchange, for a table without `tokenUrl`. */
  exchangeCode?: NetworkOAuth["exchangeCode"];
  /** The network's own refresh, for a table without `tokenUrl`. */
  refresh?: NetworkOAuth["refresh"];
}

/**
 * The `NetworkOAuth` of `table` for the app `credentials`:
 * - `authorizeUrl`: `table.oauth.authorizeUrl` with the client id (under the table's parameter name),
 *   `redirect_uri`, `response_type=code`, the scopes joined by the table's separator, `state`, the table's
 *   fixed parameters and, when the network takes PKCE and a challenge is given, `code_challenge` with
 *   `code_challenge_method=S256`;
 * - `exchangeCode`: `grant_type=authorization_code` with `code`, `redirect_uri`, the `code_verifier` and the
 *   table's extra code parameters, at `tokenUrl`;
 * - `refresh`: `grant_type=refresh_token`; the scopes and the refresh token are kept when the answer omits
 *   them (a network that does not rotate its refresh tokens).
 * @throws Error from `authorizeUrl` without a challenge when PKCE is required; NetworkAuthError from
 *   `exchangeCode` without a verifier when PKCE is required and from `refresh` without a refresh token;
 *   the token request's errors (./oauth-token.ts; an HTTP 429 waits as the table's API rate limits do).
 */
export function tableOAuth(
  table: NetworkTable,
  credentials: ClientCredentials,
  deps: OAuthDeps,
  parts: OAuthParts,
): NetworkOAuth {
  const o = table.oauth;
  const issuer = o.tokenIssuer ?? table.name;
  const pkce = o.pkce !== "none";
  const token = (params: Record<string, string>, previous?: TokenSet): Promise<TokenSet> => {
    if (!o.tokenUrl) throw new Error(`${table.name} has no standard token endpoint in its table`);
    return requestToken(deps.http, deps.now, {
      network: issuer,
      url: o.tokenUrl,
      params: o.clientAuth === "basic+id" ? { ...params, client_id: credentials.clientId } : params,
      credentials,
      clientAuth: o.clientAuth === "body" ? "body" : "basic",
      clientIdParam: o.clientIdParam,
      headers: { ...o.tokenHeaders },
      previousScopes: previous?.scopes,
      rateLimited: (res) =>
        new NetworkRateLimitError(
          `rate limited by ${issuer}'s token endpoint`,
          rateLimitWait(table.api.errors, res.headers, deps.now()),
        ),
    });
  };

  return {
    pkce,
    requiredScopes: o.requiredScopes ?? o.scopes,
    refreshAheadSeconds: o.refreshAheadSeconds,
    pickAccounts: o.pickAccounts,
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      if (o.pkce === "required" && !codeChallenge)
        throw new Error(`${table.name} requires PKCE: a code challenge is needed`);
      const u = new URL(o.authorizeUrl);
      u.searchParams.set(o.clientIdParam, credentials.clientId);
      u.searchParams.set("redirect_uri", redirectUri);
      u.searchParams.set("response_type", "code");
      u.searchParams.set("scope", o.scopes.join(o.scopeSeparator));
      u.searchParams.set("state", state);
      for (const [k, v] of Object.entries(o.authorizeParams ?? {})) u.searchParams.set(k, v);
      if (pkce && codeChallenge) {
        u.searchParams.set("code_challenge", codeChallenge);
        u.searchParams.set("code_challenge_method", "S256");
      }
      return u.toString();
    },
    exchangeCode:
      parts.exchangeCode ??
      (async ({ code, redirectUri, codeVerifier }) => {
        if (o.pkce === "required" && !codeVerifier)
          throw new NetworkAuthError(`${table.name} requires PKCE: the code verifier is missing`);
        return token({
          grant_type: "authorization_code",
          code,
          redirect_uri: redirectUri,
          ...(pkce && codeVerifier ? { code_verifier: codeVerifier } : {}),
          ...o.codeParams,
        });
      }),
    refresh:
      parts.refresh ??
      (async (tokens) => {
        if (!tokens.refreshToken)
          throw new NetworkAuthError(
            o.noRefreshToken ?? `${table.name} gave no refresh token; reconnect the account`,
          );
        const next = await token({ grant_type: "refresh_token", refresh_token: tokens.refreshToken }, tokens);
        return { ...next, refreshToken: next.refreshToken ?? tokens.refreshToken };
      }),
    accounts: parts.accounts,
  };
}
