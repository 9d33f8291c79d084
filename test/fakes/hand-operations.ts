/**
 * Operations no published description covers, written by hand from the reference pages (contract-hand.ts):
 * the OAuth 2.0 token endpoints of X and Google. Each table entry is one operation; add one for a new call
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
