/**
 * YouTube's table (../network-table.ts): Google OAuth 2.0 for web server apps and the Data API v3's error
 * reasons (networks.md 2.4 and "OAuth endpoints"; https://developers.google.com/identity/protocols/oauth2/
 * web-server, https://developers.google.com/youtube/v3/docs/errors, https://cloud.google.com/apis/design/errors).
 * - PKCE S256 (sent whenever the flow has a challenge), `access_type=offline` and `prompt=consent` so that
 *   Google issues a refresh token; scopes space-separated (URLs): upload and readonly required, force-ssl
 *   asked for the first comment and removal (a grant without it publishes; those fail naming it); the
 *   client's id and secret in the token request's body at `https://oauth2.googleapis.com/token`. Access
 *   tokens live an hour: refreshed in their last 5 minutes (the refresh pass runs every minute); Google does
 *   not rotate refresh tokens (the stored one is kept).
 * - Errors `{error:{code, message, status, errors:[{message, domain, reason}]}}`, classified by `reason`:
 *   `authError`, `insufficientPermissions`, `youtubeSignupRequired`, `authenticatedUserAccount*`,
 *   `accountDelegationForbidden` -> auth; `rateLimitExceeded`, `userRateLimitExceeded` -> rate limit;
 *   `backendError` -> transient; then the HTTP status. ./api.ts answers the quota reasons first.
 */
import type { Capabilities } from "../network.ts";
import type { NetworkTable } from "../network-table.ts";

/** Base URL of the Data API resources (channels, videos, playlistItems). */
export const YT_DATA_API = "https://www.googleapis.com/youtube/v3";
/** The media upload endpoint of `videos.insert`. */
export const YT_UPLOAD_URL = "https://www.googleapis.com/upload/youtube/v3/videos";

export const YOUTUBE_UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload";
export const YOUTUBE_READONLY_SCOPE = "https://www.googleapis.com/auth/youtube.readonly";
/**
 * Comments and deletes: `commentThreads.insert` / `.list` take only this scope; `videos.delete` takes it or
 * `youtube` (https://developers.google.com/youtube/v3/docs/commentThreads/insert#auth,
 * https://developers.google.com/youtube/v3/docs/videos/delete#auth); `youtube.upload` does neither.
 */
export const YOUTUBE_FORCE_SSL_SCOPE = "https://www.googleapis.com/auth/youtube.force-ssl";

/** YouTube publishes videos only (Shorts or regular videos). */
export const YOUTUBE_CAPABILITIES: Capabilities = { text: false, image: false, carousel: false, video: true };

export const YOUTUBE: NetworkTable = {
  network: "youtube",
  name: "YouTube",
  capabilities: YOUTUBE_CAPABILITIES,
  oauth: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    tokenIssuer: "Google",
    clientIdParam: "client_id",
    clientAuth: "body",
    // Upload videos; read the channel, the uploads and the statistics (both needed to publish); comment
    // and delete (force-ssl, optional: an account connected without it still publishes).
    scopes: [YOUTUBE_UPLOAD_SCOPE, YOUTUBE_READONLY_SCOPE, YOUTUBE_FORCE_SSL_SCOPE],
    requiredScopes: [YOUTUBE_UPLOAD_SCOPE, YOUTUBE_READONLY_SCOPE],
    scopeSeparator: " ",
    pkce: "supported",
    authorizeParams: { access_type: "offline", prompt: "consent" },
    refreshAheadSeconds: 300,
    noRefreshToken: "Google gave no refresh token for this account; reconnect it",
  },
  api: {
    name: "YouTube",
    base: YT_DATA_API,
    jsonType: "application/json; charset=UTF-8",
    errors: {
      auth: [
        "authError",
        "insufficientPermissions",
        "youtubeSignupRequired",
        "authenticatedUserAccountClosed",
        "authenticatedUserAccountSuspended",
        "accountDelegationForbidden",
      ],
      rateLimit: ["rateLimitExceeded", "userRateLimitExceeded"],
      transient: ["backendError"],
    },
  },
};
