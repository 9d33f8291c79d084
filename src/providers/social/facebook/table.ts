/**
 * Facebook's table (../network-table.ts): Facebook Login for Pages and the Graph API's errors (networks.md
 * 2.3 and "OAuth endpoints"; https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow,
 * .../facebook-login/guides/access-tokens/get-long-lived, .../pages-api/getting-started).
 * - The versioned dialog `https://www.facebook.com/v{version}/dialog/oauth`, scopes comma-separated, no PKCE;
 *   the user picks the Pages to connect. The code exchange and the long-lived token are Facebook's own
 *   (`GET /oauth/access_token`, ./oauth.ts); Page tokens from a long-lived user token do not expire.
 * - API errors: the Graph API's table (./graph.ts).
 */
import type { Capabilities } from "../network.ts";
import type { NetworkTable } from "../network-table.ts";
import { GRAPH_VERSION, META_GRAPH_API } from "./graph.ts";

export const FACEBOOK_GRAPH = "https://graph.facebook.com";

/** Permissions for publishing to Pages (networks.md 2.3); a grant without them is refused. */
export const FACEBOOK_SCOPES = ["pages_show_list", "pages_manage_posts", "pages_read_engagement"] as const;
/** Also asked at consent, for the post insights of the analytics sync (./metrics.ts); not required. */
export const FACEBOOK_INSIGHTS_SCOPES = ["read_insights"] as const;
/**
 * Also asked at consent, to post a first comment as the Page (./published.ts); not required: a grant without
 * it fails the first comment with the reason.
 */
export const FACEBOOK_ENGAGEMENT_SCOPES = ["pages_manage_engagement"] as const;

/** Text, photos (one or several), videos. */
export const FACEBOOK_CAPABILITIES: Capabilities = { text: true, image: true, carousel: true, video: true };

export const FACEBOOK: NetworkTable = {
  network: "facebook",
  name: "Facebook",
  capabilities: FACEBOOK_CAPABILITIES,
  oauth: {
    authorizeUrl: `https://www.facebook.com/${GRAPH_VERSION}/dialog/oauth`,
    clientIdParam: "client_id",
    clientAuth: "body",
    scopes: [...FACEBOOK_SCOPES, ...FACEBOOK_INSIGHTS_SCOPES, ...FACEBOOK_ENGAGEMENT_SCOPES],
    requiredScopes: FACEBOOK_SCOPES,
    scopeSeparator: ",",
    pkce: "none",
    pickAccounts: true,
  },
  api: { ...META_GRAPH_API, base: FACEBOOK_GRAPH },
};
