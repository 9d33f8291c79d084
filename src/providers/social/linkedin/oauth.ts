/**
 * LinkedIn OAuth 2.0: the flow of LinkedIn's table (./table.ts, read by ../oauth-flow.ts: authorization code
 * grant without PKCE, `POST https://www.linkedin.com/oauth/v2/accessToken` -> `{access_token, expires_in,
 * refresh_token?, refresh_token_expires_in?, scope}`, errors `{error, error_description}`) and the authors the
 * member may publish as (networks.md 2.5; https://learn.microsoft.com/en-us/linkedin/consumer/integrations/
 * self-serve/sign-in-with-linkedin-v2, .../marketing/community-management/organizations/organization-access-
 * control-by-role, .../marketing/community-management/organizations/organization-lookup-api):
 * - the member: `GET https://api.linkedin.com/v2/userinfo` (OpenID Connect) -> `sub` -> `urn:li:person:{sub}`;
 * - the organization pages the member administers: `GET /rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR
 *   &state=APPROVED` (paged with `start`/`count`), each named by `GET /rest/organizations/{id}`.
 *
 * One account per author: the member and each administered page; the user picks which to connect
 * (`pickAccounts`). Each account's `networkAccountId` is its author URN, also kept in `metadata.authorUrn`.
 */
import { type NetworkAccount, NetworkAuthError } from "../network.ts";
import type { OAuthParts } from "../oauth-flow.ts";
import { type LinkedInClient, linkedinRequest } from "./api.ts";
import { LINKEDIN_CAPABILITIES } from "./table.ts";

export { LINKEDIN_CAPABILITIES, LINKEDIN_SCOPES } from "./table.ts";

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

/** The parts of LinkedIn's OAuth its table cannot say: the member and the pages they administer. */
export function linkedinOAuthParts(client: LinkedInClient): OAuthParts {
  return {
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
