/**
 * Operations no published description covers, written by hand from the reference pages (contract-hand.ts):
 * the OAuth 2.0 token endpoints of X and Google, and YouTube's `commentThreads.list`. Each table entry is one operation; add one for a new call
 * (e.g. LinkedIn's Documents API) the same way.
 */
import { formBody, type HandOperation } from "./contract-hand.ts";

const TOKEN_ANSWER = {
  type: "object",
  required: ["access_token", "token_type"],
  properties: {
    access_token: { type: "string" },
    token_type: { type: "string" },
    expires_in: { type: "integer" },
    refresh_token: { type: "string" },
    scope: { type: "string" },
  },
};

/**
 * X's OAuth 2.0 token endpoint: `authorization_code` with PKCE (`code`, `redirect_uri`, `code_verifier`,
 * `client_id` for a public client) and `refresh_token`, form-encoded, client credentials in Basic auth for a
 * confidential client.
 */
export const X_OAUTH_OPERATIONS: HandOperation[] = [
  {
    id: "oauth2.token",
    method: "POST",
    path: "/2/oauth2/token",
    source: "https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/user-access-token",
    body: {
      "application/x-www-form-urlencoded": formBody(
        ["grant_type"],
        ["code", "redirect_uri", "code_verifier", "client_id", "refresh_token"],
      ),
    },
    responses: { "200": TOKEN_ANSWER },
  },
];

/** Google's token endpoint: the code exchange (with PKCE) and refreshes, form-encoded, credentials in the body. */
export const GOOGLE_OAUTH_OPERATIONS: HandOperation[] = [
  {
    id: "oauth2.token",
    method: "POST",
    path: "/token",
    source: "https://developers.google.com/identity/protocols/oauth2/web-server#exchange-authorization-code",
    body: {
      "application/x-www-form-urlencoded": formBody(
        ["grant_type", "client_id", "client_secret"],
        ["code", "redirect_uri", "code_verifier", "refresh_token"],
      ),
    },
    responses: { "200": TOKEN_ANSWER },
  },
];

/**
 * YouTube Data API operations the vendored Discovery document (test/contracts/youtube.json) does not carry:
 * `commentThreads.list` (read back a first comment whose answer was lost), from its reference page. Its
 * OAuth scope is `youtube.force-ssl` (the page's "Authorization" section).
 */
export const YOUTUBE_HAND_OPERATIONS: HandOperation[] = [
  {
    id: "youtube.commentThreads.list",
    method: "GET",
    path: "/youtube/v3/commentThreads",
    source: "https://developers.google.com/youtube/v3/docs/commentThreads/list",
    query: {
      part: { required: true },
      allThreadsRelatedToChannelId: {},
      id: {},
      videoId: {},
      maxResults: { schema: { type: "integer", minimum: 1, maximum: 100 } },
      moderationStatus: { schema: { enum: ["heldForReview", "likelySpam", "published"] } },
      order: { schema: { enum: ["time", "relevance"] } },
      pageToken: {},
      searchTerms: {},
      textFormat: { schema: { enum: ["html", "plainText"] } },
    },
    responses: {
      "200": {
        type: "object",
        required: ["items"],
        properties: {
          kind: { const: "youtube#commentThreadListResponse" },
          etag: { type: "string" },
          nextPageToken: { type: "string" },
          pageInfo: {
            type: "object",
            properties: { totalResults: { type: "integer" }, resultsPerPage: { type: "integer" } },
          },
          items: {
            type: "array",
            items: {
              type: "object",
              required: ["id", "snippet"],
              properties: {
                kind: { const: "youtube#commentThread" },
                etag: { type: "string" },
                id: { type: "string" },
                snippet: {
                  type: "object",
                  properties: {
                    channelId: { type: "string" },
                    videoId: { type: "string" },
                    topLevelComment: { type: "object" },
                    canReply: { type: "boolean" },
                    totalReplyCount: { type: "integer" },
                    isPublic: { type: "boolean" },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
];
