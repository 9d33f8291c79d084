/**
 * LinkedIn OAuth 2.0 (3-legged, authorization code grant, RFC 6749 section 4.1; no PKCE for web apps) and the
 * authors the member may publish as (networks.md 2.5 and "OAuth endpoints";
 * https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow,
 * https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens,
 * .../consumer/integrations/self-serve/sign-in-with-linkedin-v2,
 * .../marketing/community-management/organizations/organization-access-control-by-role,
 * .../marketing/community-management/organizations/organization-lookup-api):
 * - browser: `https://www.linkedin.com/oauth/v2/authorization?response_type=code&client_id&redirect_uri&state&scope`
 *   (scopes space-separated);
 * - token: `POST https://www.linkedin.com/oauth/v2/accessToken` (form, `client_id`/`client_secret` in the body)
 *   -> `{access_token, expires_in, refresh_token?, refresh_token_expires_in?, scope}`; member access tokens
 *   live about 60 days; refresh tokens (about a year) only for apps LinkedIn enabled them for, refreshed with
 *   `grant_type=refresh_token`; errors `{error, error_description}`;
 * - the member: `GET https://api.linkedin.com/v2/userinfo` (OpenID Connect) -> `sub` -> `urn:li:person:{sub}`;
 * - the organization pages the member administers: `GET /rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR
 *   &state=APPROVED` (paged with `start`/`count`), each named by `GET /rest/organizations/{id}`.
 *
 * One account per author: the member and each administered page; the user picks which to connect
 * (`pickAccounts`). Each account's `networkAccountId` is its author URN, also kept in `metadata.authorUrn`.
 */
import { requestToken } from "../oauth-token.ts";
import {
  type Capabilities,
  type ClientCredentials,
  type NetworkAccount,
  NetworkAuthError,
  type NetworkOAuth,
  type TokenSet,
} from "../network.ts";
import { type LinkedInClient, linkedinRequest } from "./api.ts";

export const LINKEDIN_OAUTH = "https://www.linkedin.com/oauth/v2";

/** Member scopes: sign in (OpenID) and post as the member. */
export const LINKEDIN_MEMBER_SCOPES = ["openid", "profile", "w_member_social"] as const;
/** Organization page scopes (Community Management API): post, read posts and statistics, list the pages. */
export const LINKEDIN_ORGANIZATION_SCOPES = [
  "w_organization_social",
  "r_organization_social",
  "rw_organization_admin",
] as const;
/** Everything asked at consent. */
export const LINKEDIN_SCOPES = [...LINKEDIN_MEMBER_SCOPES, ...LINKEDIN_ORGANIZATION_SCOPES] as const;

export const LINKEDIN_CAPABILITIES: Capabilities = { text: true, image: true, carousel: true, video: true };

/** Pages read from `organizationAcls` per request, and at most in all. */
const ACL_PAGE = 100;
const MAX_ORGANIZATIONS = 200;

interface UserInfo {
  sub?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
}

interface AclElement {
  organization?: string;
  role?: string;
  state?: string;
}

interface Organization {
  id?: number;
  localizedName?: string;
  vanityName?: string;
}

/** The author URN of an account (`metadata.authorUrn`, else its network account id). */
export function authorUrn(account: { networkAccountId: string; metadata: Record<string, unknown> }): string {
  const urn = account.metadata.authorUrn;
  return typeof urn === "string" && urn ? urn : account.networkAccountId;
}

/** Whether `urn` is an organization page (`urn:li:organization:{id}`). */
export function isOrganization(urn: string): boolean {
  return urn.startsWith("urn:li:organization:");
}

/**
 * The LinkedIn OAuth of one app (`credentials` = client id and secret); API calls go through `client`.
 */
export function linkedinOAuth(credentials: ClientCredentials, client: LinkedInClient): NetworkOAuth {
  const token = (params: Record<string, string>, previous?: TokenSet): Promise<TokenSet> =>
    requestToken(client.http, client.now, {
      network: "LinkedIn",
      url: `${LINKEDIN_OAUTH}/accessToken`,
      params,
      credentials,
      clientAuth: "body",
      previousScopes: previous?.scopes,
    });

  return {
    pkce: false,
    requiredScopes: LINKEDIN_MEMBER_SCOPES,
    pickAccounts: true,
    // Member tokens live about 60 days; refreshing a week ahead leaves room for outages.
    refreshAheadSeconds: 7 * 86_400,
    authorizeUrl({ state, redirectUri }) {
      const u = new URL(`${LINKEDIN_OAUTH}/authorization`);
      u.searchParams.set("response_type", "code");
      u.searchParams.set("client_id", credentials.clientId);
      u.searchParams.set("redirect_uri", redirectUri);
      u.searchParams.set("state", state);
      u.searchParams.set("scope", LINKEDIN_SCOPES.join(" "));
      return u.toString();
    },

    exchangeCode({ code, redirectUri }) {
      return token({ grant_type: "authorization_code", code, redirect_uri: redirectUri });
    },

    async refresh(tokens) {
      if (!tokens.refreshToken)
        throw new NetworkAuthError(
          "LinkedIn gave this app no refresh token; reconnect the account before its 60-day token expires",
        );
      return token({ grant_type: "refresh_token", refresh_token: tokens.refreshToken }, tokens);
    },

    async accounts(tokens) {
      const me = await linkedinRequest<UserInfo>(client, {
        method: "GET",
        path: "/v2/userinfo",
        accessToken: tokens.accessToken,
      });
      if (!me.body.sub) throw new NetworkAuthError("LinkedIn returned no member id (sub)");
      const name =
        me.body.name ??
        ([me.body.given_name, me.body.family_name].filter(Boolean).join(" ") || "LinkedIn member");
      const person = `urn:li:person:${me.body.sub}`;
      const out: NetworkAccount[] = [
        {
          networkAccountId: person,
          handle: name,
          displayName: name,
          avatarUrl: me.body.picture,
          capabilities: LINKEDIN_CAPABILITIES,
          metadata: { authorUrn: person, authorType: "person" },
        },
      ];
      if (!tokens.scopes.includes("rw_organization_admin")) return out;
      for (const urn of await administeredOrganizations(client, tokens.accessToken)) {
        const id = urn.slice("urn:li:organization:".length);
        const org = await linkedinRequest<Organization>(client, {
          method: "GET",
          path: `/rest/organizations/${encodeURIComponent(id)}`,
          accessToken: tokens.accessToken,
        });
        const label = org.body.localizedName ?? org.body.vanityName ?? urn;
        out.push({
          networkAccountId: urn,
          handle: org.body.vanityName ?? label,
          displayName: label,
          capabilities: LINKEDIN_CAPABILITIES,
          metadata: { authorUrn: urn, authorType: "organization" },
        });
      }
      return out;
    },
  };
}

/** The organization URNs the member administers (approved ADMINISTRATOR role), in LinkedIn's order. */
async function administeredOrganizations(client: LinkedInClient, accessToken: string): Promise<string[]> {
  const urns: string[] = [];
  for (let start = 0; urns.length < MAX_ORGANIZATIONS; start += ACL_PAGE) {
    const r = await linkedinRequest<{ elements?: AclElement[]; paging?: { total?: number } }>(client, {
      method: "GET",
      path: `/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&start=${start}&count=${ACL_PAGE}`,
      accessToken,
      restliMethod: "FINDER",
    });
    const elements = r.body.elements ?? [];
    for (const e of elements) {
      if (e.organization?.startsWith("urn:li:organization:") && !urns.includes(e.organization))
        urns.push(e.organization);
    }
    const total = r.body.paging?.total;
    if (elements.length < ACL_PAGE || (total !== undefined && start + ACL_PAGE >= total)) break;
  }
  return urns.slice(0, MAX_ORGANIZATIONS);
}
