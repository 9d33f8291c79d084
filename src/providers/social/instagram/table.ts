/**
 * Instagram's table (../network-table.ts): the Instagram API with Instagram Login and the Graph API's
 * errors (networks.md 2.2 and "OAuth endpoints"; https://developers.facebook.com/docs/instagram-platform/
 * instagram-api-with-instagram-login/business-login).
 * - `https://www.instagram.com/oauth/authorize`, scopes comma-separated, no PKCE. The code exchange (then the
 *   60-day long-lived token) and its refresh are Instagram's own (./oauth.ts); refreshed a week before
 *   expiry, which leaves room for outages.
 * - API errors: the Graph API's table (../facebook/graph.ts).
 */
import { META_GRAPH_API } from "../facebook/graph.ts";
import type { Capabilities } from "../network.ts";
import type { NetworkTable } from "../network-table.ts";

export const INSTAGRAM_GRAPH = "https://graph.instagram.com";

/** Scopes of Instagram Login for publishing (networks.md 2.2); a grant without them is refused. */
export const INSTAGRAM_SCOPES = ["instagram_business_basic", "instagram_business_content_publish"] as const;
/** Also asked at consent, for the media insights of the analytics sync (./metrics.ts); not required. */
export const INSTAGRAM_INSIGHTS_SCOPES = ["instagram_business_manage_insights"] as const;
/**
 * Also asked at consent, for the first comment (./published.ts, `POST /{ig-media-id}/comments`); not
 * required: a grant without it publishes, and its first comments fail naming it.
 */
export const INSTAGRAM_COMMENT_SCOPES = ["instagram_business_manage_comments"] as const;

/** Images, carousels (2 to 10 items) and Reels; no text-only posts. */
export const INSTAGRAM_CAPABILITIES: Capabilities = { text: false, image: true, carousel: true, video: true };

export const INSTAGRAM: NetworkTable = {
  network: "instagram",
  name: "Instagram",
  capabilities: INSTAGRAM_CAPABILITIES,
  oauth: {
    authorizeUrl: "https://www.instagram.com/oauth/authorize",
    clientIdParam: "client_id",
    clientAuth: "body",
    scopes: [...INSTAGRAM_SCOPES, ...INSTAGRAM_INSIGHTS_SCOPES, ...INSTAGRAM_COMMENT_SCOPES],
    requiredScopes: INSTAGRAM_SCOPES,
    scopeSeparator: ",",
    pkce: "none",
    refreshAheadSeconds: 7 * 86_400,
  },
  api: { ...META_GRAPH_API, base: INSTAGRAM_GRAPH },
};
