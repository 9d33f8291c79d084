/**
 * TikTok's table (../network-table.ts): Login Kit OAuth v2 and the Open API's error codes (networks.md 2.1 and
 * "OAuth endpoints"; https://developers.tiktok.com/doc/login-kit-web,
 * .../doc/oauth-user-access-token-management, .../doc/tiktok-api-v2-error-handling,
 * .../doc/content-posting-api-reference-direct-post "Error codes").
 * - The client id is TikTok's `client_key`, in the authorize URL and in the token request's body; scopes are
 *   comma-separated; no PKCE for web apps. Access tokens live 24 hours (refreshed an hour ahead), refresh
 *   tokens about 365 days.
 * - API answers `{data, error:{code, message, log_id}}` with `code: "ok"` on success. `access_token_invalid`,
 *   `scope_not_authorized`, `scope_permission_missed` -> auth; `rate_limit_exceeded` -> rate limit;
 *   `internal_error` and an error answer without TikTok's envelope -> transient; any other code
 *   (`spam_risk_too_many_posts`, `privacy_level_option_mismatch`, `url_ownership_unverified`, ...) -> rejected.
 */
import type { Capabilities } from "../network.ts";
import type { NetworkTable } from "../network-table.ts";

export const TIKTOK_API = "https://open.tiktokapis.com";

/** Photos (1 to 35) and videos; no text-only posts. */
export const TIKTOK_CAPABILITIES: Capabilities = { text: false, image: true, carousel: true, video: true };

export const TIKTOK: NetworkTable = {
  network: "tiktok",
  name: "TikTok",
  capabilities: TIKTOK_CAPABILITIES,
  oauth: {
    authorizeUrl: "https://www.tiktok.com/v2/auth/authorize/",
    tokenUrl: `${TIKTOK_API}/v2/oauth/token/`,
    clientIdParam: "client_key",
    clientAuth: "body",
    // `user.info.profile`: the username of post URLs; `user.info.stats`, `video.list`: the analytics sync.
    scopes: ["user.info.basic", "user.info.profile", "user.info.stats", "video.list", "video.publish"],
    // Without these the account cannot publish (Direct Post).
    requiredScopes: ["user.info.basic", "video.publish"],
    scopeSeparator: ",",
    pkce: "none",
    tokenHeaders: { "cache-control": "no-cache" },
    refreshAheadSeconds: 3600,
  },
  api: {
    name: "TikTok",
    base: TIKTOK_API,
    jsonType: "application/json; charset=UTF-8",
    errors: {
      auth: ["access_token_invalid", "scope_not_authorized", "scope_permission_missed"],
      rateLimit: ["rate_limit_exceeded"],
      transient: ["internal_error"],
      uncodedIsTransient: true,
    },
  },
};
