/**
 * X's table (../network-table.ts): OAuth 2.0 with PKCE and API v2 errors (networks.md 2.7 and "OAuth
 * endpoints"; https://docs.x.com/fundamentals/authentication/oauth-2-0/authorization-code,
 * .../oauth-2-0/user-access-token, https://docs.x.com/x-api/fundamentals/response-codes-and-errors,
 * .../fundamentals/rate-limits).
 * - PKCE S256 is required; scopes space-separated; the confidential client authenticates by HTTP Basic
 *   `client_id:client_secret` and sends its `client_id` in the body too. Access tokens live 2 hours
 *   (refreshed 15 minutes ahead, room for a slow worker pass); X rotates refresh tokens.
 * - API errors are RFC 7807 problem details without codes: the HTTP status decides (401 auth, 429 rate
 *   limit with X's reset headers, 5xx transient); ./api.ts adds X's special answers (403
 *   `unsupported-authentication`, the usage cap, a duplicate post).
 */
import { xUsageStop } from "../usage.ts";
import type { Capabilities } from "../network.ts";
import type { NetworkTable } from "../network-table.ts";
import { retryAfterSeconds } from "../http.ts";
import { DEFAULT_RATE_LIMIT_SECONDS } from "../api-errors.ts";

/** The X API v2 host. */
export const X_API = "https://api.x.com";

/** Text alone, up to 4 images, or one video (networks.md 2.7). */
export const X_CAPABILITIES: Capabilities = { text: true, image: true, carousel: true, video: true };

/** Scopes asked at consent, all required: post, upload media, read the user, and a refresh token. */
export const X_SCOPES = ["tweet.read", "tweet.write", "users.read", "offline.access", "media.write"] as const;

/**
 * Seconds to wait after a 429 from X's headers, at least 1: the latest of `Retry-After`,
 * `x-rate-limit-reset` (epoch seconds, when `x-rate-limit-remaining` is 0 or absent) and the 24-hour
 * user/app post caps (`x-user-limit-24hour-reset`, `x-app-limit-24hour-reset` when their `-remaining` is 0),
 * else 60 s.
 * @param now the current time (the reset headers are epoch seconds).
 */
export function xRateLimitWait(headers: Headers, now: Date): number {
  const reset = (prefix: string): number | undefined => {
    const at = Number(headers.get(`${prefix}-reset`));
    return Number.isFinite(at) && at > 0 ? Math.max(0, Math.ceil(at - now.getTime() / 1000)) : undefined;
  };
  const exhausted = (prefix: string, absentCounts: boolean) => {
    const left = headers.get(`${prefix}-remaining`);
    return left === null ? absentCounts : Number(left) <= 0;
  };
  const waits = [
    retryAfterSeconds(headers, now),
    exhausted("x-rate-limit", true) ? reset("x-rate-limit") : undefined,
    exhausted("x-user-limit-24hour", false) ? reset("x-user-limit-24hour") : undefined,
    exhausted("x-app-limit-24hour", false) ? reset("x-app-limit-24hour") : undefined,
  ].filter((w): w is number => w !== undefined);
  return Math.max(1, waits.length > 0 ? Math.max(...waits) : DEFAULT_RATE_LIMIT_SECONDS);
}

export const X: NetworkTable = {
  network: "x",
  name: "X",
  capabilities: X_CAPABILITIES,
  oauth: {
    authorizeUrl: "https://x.com/i/oauth2/authorize",
    tokenUrl: `${X_API}/2/oauth2/token`,
    clientIdParam: "client_id",
    clientAuth: "basic+id",
    scopes: X_SCOPES,
    scopeSeparator: " ",
    pkce: "required",
    refreshAheadSeconds: 900,
  },
  api: {
    name: "X",
    base: X_API,
    errors: { auth: [], rateLimit: [], transient: [], rateLimitWait: xRateLimitWait },
    usage: xUsageStop,
  },
};
