/**
 * LinkedIn's table (../network-table.ts): OAuth 2.0 (3-legged) and the versioned REST API's errors
 * (networks.md 2.5 and "OAuth endpoints"; under https://learn.microsoft.com/en-us/linkedin/shared/:
 * authentication/authorization-code-flow, authentication/programmatic-refresh-tokens,
 * api-guide/concepts/error-handling, api-guide/concepts/rate-limits).
 * - Scopes space-separated: `openid profile w_member_social`, plus the organization page scopes only for an app
 *   with the Community Management API product (`linkedinTable`); no PKCE for web apps; `client_id`/`client_secret` in the token request's body.
 *   Member access tokens live about 60 days (refreshed a week ahead); refresh tokens (about a year) only for
 *   apps LinkedIn enabled them for. The member picks which authors (the member, the pages) to connect.
 * - Errors `{status, serviceErrorCode, code, message}`: 401 -> auth; 429 (daily application and member
 *   throttles) -> rate limit after `Retry-After`, else until 00:00 UTC (the throttles count per UTC day);
 *   5xx -> transient; anything else -> rejected. ./api.ts adds 403 (ACCESS_DENIED: a scope or role is
 *   missing) and 426 (an inactive `LinkedIn-Version`).
 */
import { retryAfterSeconds } from "../http.ts";
import type { Capabilities } from "../network.ts";
import type { NetworkTable } from "../network-table.ts";

export const LINKEDIN_API = "https://api.linkedin.com";
export const LINKEDIN_OAUTH = "https://www.linkedin.com/oauth/v2";

/** Text, images (1 to 20), one video; as the member or as an organization page. */
export const LINKEDIN_CAPABILITIES: Capabilities = { text: true, image: true, carousel: true, video: true };

/** Member scopes: sign in (OpenID) and post as the member. */
export const LINKEDIN_MEMBER_SCOPES = ["openid", "profile", "w_member_social"] as const;
/** Organization page scopes (Community Management API): post, read posts and statistics, list the pages. */
export const LINKEDIN_ORGANIZATION_SCOPES = [
  "w_organization_social",
  "r_organization_social",
  "rw_organization_admin",
] as const;
/** Everything asked at consent with the organization pages enabled (`LINKEDIN_ORGANIZATIONS=true`). */
export const LINKEDIN_SCOPES = [...LINKEDIN_MEMBER_SCOPES, ...LINKEDIN_ORGANIZATION_SCOPES] as const;

/** Seconds from `now` until the next 00:00 UTC (at least 1): when LinkedIn's daily throttles reset. */
export function secondsUntilUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

export const LINKEDIN: NetworkTable = {
  network: "linkedin",
  name: "LinkedIn",
  capabilities: LINKEDIN_CAPABILITIES,
  oauth: {
    authorizeUrl: `${LINKEDIN_OAUTH}/authorization`,
    tokenUrl: `${LINKEDIN_OAUTH}/accessToken`,
    clientIdParam: "client_id",
    clientAuth: "body",
    scopes: LINKEDIN_MEMBER_SCOPES,
    scopeSeparator: " ",
    pkce: "none",
    refreshAheadSeconds: 7 * 86_400,
    pickAccounts: true,
    noRefreshToken:
      "LinkedIn gave this app no refresh token; reconnect the account before its 60-day token expires",
  },
  api: {
    name: "LinkedIn",
    base: LINKEDIN_API,
    // Rest.li protocol 2.0.0 on every call (the version header is per call: only `/rest/` paths take it).
    headers: { "x-restli-protocol-version": "2.0.0" },
    errors: {
      auth: [],
      rateLimit: [],
      transient: [],
      rateLimitWait: (headers, now) => retryAfterSeconds(headers, now) ?? secondsUntilUtcMidnight(now),
    },
  },
};

/**
 * LinkedIn's table for an app with (`organizations`) or without the Community Management API product: the
 * member scopes always, the organization page scopes only when the operator enabled them
 * (`LINKEDIN_ORGANIZATIONS=true`), because LinkedIn refuses the whole consent (`unauthorized_scope_error`)
 * when one requested scope is not granted to the app. Either way only the member scopes are required.
 */
export function linkedinTable(organizations: boolean): NetworkTable {
  if (!organizations) return LINKEDIN;
  return {
    ...LINKEDIN,
    oauth: { ...LINKEDIN.oauth, scopes: LINKEDIN_SCOPES, requiredScopes: LINKEDIN_MEMBER_SCOPES },
  };
}
