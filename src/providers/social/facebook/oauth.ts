/**
 * Facebook Login for Pages: the connect flow of Facebook's table (./table.ts, read by ../oauth-flow.ts), with
 * Facebook's own exchange of the code for a long-lived user token, the granted permissions, and one account
 * per Page with its Page token (networks.md 2.3 and "OAuth endpoints";
 * https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow,
 * .../pages-api/getting-started, .../facebook-login/guides/access-tokens/get-long-lived).
 *
 * Page tokens obtained with a long-lived user token do not expire, so `refresh` has nothing to renew; a
 * revoked token shows up as code 190 on the next call (NetworkAuthError -> reconnect).
 */
import type { ClientCredentials, NetworkAccount, TokenSet } from "../network.ts";
import { expiresAt } from "../network-text.ts";
import type { OAuthDeps, OAuthParts } from "../oauth-flow.ts";
import { GRAPH_VERSION, graphRequest } from "./graph.ts";
import { FACEBOOK_CAPABILITIES, FACEBOOK_GRAPH } from "./table.ts";

export { FACEBOOK_CAPABILITIES };

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
 * The parts of Facebook Login its table cannot say: Facebook's own code exchange (short-lived, then
 * long-lived user token, granted permissions), the token check that stands for a refresh, and the Pages.
 */
export function facebookOAuthParts(credentials: ClientCredentials, { http, now }: OAuthDeps): OAuthParts {
  return {
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
