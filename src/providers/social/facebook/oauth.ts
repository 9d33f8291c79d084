/**
 * Facebook Login for Pages: the connect flow (authorization code grant, RFC 6749 section 4.1), the exchange
 * for a long-lived user token, the granted permissions, and one account per Page with its Page token
 * (networks.md 2.3 and "OAuth endpoints"; https://developers.facebook.com/docs/facebook-login/guides/advanced/
 * manual-flow, .../pages-api/getting-started, .../facebook-login/guides/access-tokens/get-long-lived).
 *
 * Page tokens obtained with a long-lived user token do not expire, so `refresh` has nothing to renew; a
 * revoked token shows up as code 190 on the next call (NetworkAuthError -> reconnect).
 */
import type { SocialHttp } from "../http.ts";
import type { Capabilities, ClientCredentials, NetworkAccount, NetworkOAuth, TokenSet } from "../network.ts";
import { expiresAt } from "../network-text.ts";
import { GRAPH_VERSION, graphRequest } from "./graph.ts";

export const FACEBOOK_GRAPH = "https://graph.facebook.com";

/** Permissions for publishing to Pages (networks.md 2.3); a grant without them is refused. */
export const FACEBOOK_SCOPES = ["pages_show_list", "pages_manage_posts", "pages_read_engagement"] as const;
/** Also asked at consent, for the post insights of the analytics sync (./metrics.ts); not required. */
export const FACEBOOK_INSIGHTS_SCOPES = ["read_insights"] as const;

export const FACEBOOK_CAPABILITIES: Capabilities = { text: true, image: true, carousel: true, video: true };

/** Most Pages read from `/me/accounts` (paged by the network 25 at a time). */
const MAX_PAGES = 200;

interface PageRow {
  id: string;
  name: string;
  access_token?: string;
  picture?: { data?: { url?: string } };
  tasks?: string[];
}

/**
 * The Facebook Login OAuth of one Meta app (`credentials` = app id and app secret);
 * requests go through `http` (../http.ts).
 */
export function facebookOAuth(
  credentials: ClientCredentials,
  http: SocialHttp,
  now: () => Date,
): NetworkOAuth {
  return {
    pkce: false,
    requiredScopes: FACEBOOK_SCOPES,
    pickAccounts: true,
    authorizeUrl({ state, redirectUri }) {
      const u = new URL(`https://www.facebook.com/${GRAPH_VERSION}/dialog/oauth`);
      u.searchParams.set("client_id", credentials.clientId);
      u.searchParams.set("redirect_uri", redirectUri);
      u.searchParams.set("state", state);
      u.searchParams.set("response_type", "code");
      u.searchParams.set("scope", [...FACEBOOK_SCOPES, ...FACEBOOK_INSIGHTS_SCOPES].join(","));
      return u.toString();
    },

    async exchangeCode({ code, redirectUri }) {
      const short = await graphRequest<{ access_token: string }>(http, {
        method: "GET",
        url: `${FACEBOOK_GRAPH}/${GRAPH_VERSION}/oauth/access_token`,
        params: {
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret,
          redirect_uri: redirectUri,
          code,
        },
      });
      const long = await graphRequest<{ access_token: string; expires_in?: number }>(http, {
        method: "GET",
        url: `${FACEBOOK_GRAPH}/${GRAPH_VERSION}/oauth/access_token`,
        params: {
          grant_type: "fb_exchange_token",
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret,
          fb_exchange_token: short.body.access_token,
        },
      });
      const perms = await graphRequest<{ data?: Array<{ permission: string; status: string }> }>(http, {
        method: "GET",
        url: `${FACEBOOK_GRAPH}/${GRAPH_VERSION}/me/permissions`,
        accessToken: long.body.access_token,
      });
      return {
        accessToken: long.body.access_token,
        expiresAt: expiresAt(now(), long.body.expires_in),
        scopes: (perms.body.data ?? []).filter((p) => p.status === "granted").map((p) => p.permission),
      };
    },

    async refresh(tokens: TokenSet) {
      // Page tokens from a long-lived user token never expire; check the token still works.
      await graphRequest(http, {
        method: "GET",
        url: `${FACEBOOK_GRAPH}/${GRAPH_VERSION}/me`,
        params: { fields: "id" },
        accessToken: tokens.accessToken,
      });
      return tokens;
    },

    async accounts(tokens: TokenSet): Promise<NetworkAccount[]> {
      const pages: PageRow[] = [];
      let after: string | undefined;
      do {
        const r = await graphRequest<{
          data?: PageRow[];
          paging?: { cursors?: { after?: string }; next?: string };
        }>(http, {
          method: "GET",
          url: `${FACEBOOK_GRAPH}/${GRAPH_VERSION}/me/accounts`,
          params: { fields: "id,name,access_token,picture,tasks", limit: "25", after },
          accessToken: tokens.accessToken,
        });
        pages.push(...(r.body.data ?? []));
        after = r.body.paging?.next ? r.body.paging.cursors?.after : undefined;
      } while (after && pages.length < MAX_PAGES);
      return pages
        .filter((p) => p.access_token && (!p.tasks || p.tasks.includes("CREATE_CONTENT")))
        .map((p) => ({
          networkAccountId: p.id,
          handle: p.name,
          displayName: p.name,
          avatarUrl: p.picture?.data?.url,
          tokens: { accessToken: p.access_token!, scopes: tokens.scopes },
          capabilities: FACEBOOK_CAPABILITIES,
        }));
    },
  };
}
