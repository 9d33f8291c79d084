/**
 * Pinterest's table (../network-table.ts): OAuth of API v5 and its error codes (networks.md 2.6 and "OAuth
 * endpoints"; https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/,
 * https://developers.pinterest.com/docs/api/v5/oauth-token, .../docs/api/v5/introduction "Errors", the error
 * examples of https://github.com/pinterest/api-description v5/openapi.json,
 * https://developers.pinterest.com/docs/reference/rate-limits/).
 * - Scopes comma-separated, no PKCE; the token endpoint takes the app's credentials by HTTP Basic. The access
 *   token lives 30 days (refreshed a week ahead); the refresh token is a continuous refresh token (60 days, a
 *   new one with every refresh; `continuous_refresh=true` is sent for apps created before 2025-09-25, where
 *   it is not yet the default).
 * - Errors `{code, message}`: HTTP 401, code 2 ("Authentication failed."), 1104 (token not valid or expired)
 *   and 3 (the token lacks a scope, HTTP 403) -> auth; HTTP 429 (codes 8, 30) -> rate limit after
 *   `Retry-After`, else `X-RateLimit-Reset`, else 60 s; 5xx -> transient; anything else (400 with a code,
 *   403 "not permitted", 404 board or Pin not found, ...) -> rejected with Pinterest's code.
 */
import { DEFAULT_RATE_LIMIT_SECONDS } from "../api-errors.ts";
import { retryAfterSeconds } from "../http.ts";
import type { Capabilities } from "../network.ts";
import type { NetworkTable } from "../network-table.ts";

/** The API v5 base URL. */
export const PINTEREST_API = "https://api.pinterest.com/v5";

/** Image and video Pins, carousels of 2 to 5 images; no text-only Pins. */
export const PINTEREST_CAPABILITIES: Capabilities = { text: false, image: true, carousel: true, video: true };

/**
 * Seconds to wait after a 429: `Retry-After`, else `X-RateLimit-Reset` (seconds until the window resets;
 * a value that looks like a Unix time is taken as one), else 60.
 */
export function pinterestRateLimitWait(headers: Headers, now: Date = new Date()): number {
  const retry = retryAfterSeconds(headers, now);
  if (retry !== undefined) return retry;
  const reset = Number(headers.get("x-ratelimit-reset"));
  if (Number.isFinite(reset) && reset > 0) {
    return reset > 1_000_000_000 ? Math.max(0, Math.ceil(reset - now.getTime() / 1000)) : Math.ceil(reset);
  }
  return DEFAULT_RATE_LIMIT_SECONDS;
}

export const PINTEREST: NetworkTable = {
  network: "pinterest",
  name: "Pinterest",
  capabilities: PINTEREST_CAPABILITIES,
  oauth: {
    authorizeUrl: "https://www.pinterest.com/oauth/",
    tokenUrl: `${PINTEREST_API}/oauth/token`,
    clientIdParam: "client_id",
    clientAuth: "basic",
    scopes: ["boards:read", "boards:write", "pins:read", "pins:write", "user_accounts:read"],
    // boards:write is asked, never used.
    requiredScopes: ["boards:read", "pins:read", "pins:write", "user_accounts:read"],
    scopeSeparator: ",",
    pkce: "none",
    codeParams: { continuous_refresh: "true" },
    tokenHeaders: { accept: "application/json" },
    refreshAheadSeconds: 7 * 86_400,
  },
  api: {
    name: "Pinterest",
    base: PINTEREST_API,
    headers: { accept: "application/json" },
    errors: { auth: [2, 1104, 3], rateLimit: [], transient: [], rateLimitWait: pinterestRateLimitWait },
  },
};
