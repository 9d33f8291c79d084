/**
 * Validation of an authorization request (RFC 6749 section 4.1.1, RFC 7636, RFC 8707, OAuth 2.1 section
 * 4.1.2.1). Until `client_id` and `redirect_uri` are validated, failures are shown on an error page and
 * never redirect (open-redirect defence); after that they redirect to the client with `error`, `state`
 * and `iss` (RFC 9207).
 */
import { isUuid } from "../ids.ts";
import type { AppContext } from "../context.ts";
import { sha256 } from "../crypto/seal.ts";
import type { Scope } from "../scopes.ts";
import { OAuthError, type OAuthErrorCode } from "./errors.ts";
import { redirectUriMatches } from "./redirect-uri.ts";
import { parseScope } from "./scope.ts";

/** A validated authorization request (what the consent nonce is bound to). */
export interface AuthorizationRequest {
  client_id: string;
  redirect_uri: string;
  resource: string;
  /** Space-separated known scopes in catalog order. */
  scope: string;
  state: string | null;
  code_challenge: string;
}

export interface ClientRow {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
}

export type ValidationResult =
  | { kind: "ok"; request: AuthorizationRequest; client: ClientRow; scopes: Scope[] }
  /** Shown as an error page (400); the redirect URI is not trusted. */
  | { kind: "page"; message: string }
  /** Redirected to the (validated) redirect URI. */
  | {
      kind: "redirect";
      redirectUri: string;
      error: OAuthErrorCode;
      description: string;
      state: string | null;
    };

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PARAMS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "resource",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
];

/** Loads a registered client, or undefined for an unknown or malformed id. */
export async function findClient(ctx: AppContext, clientId: unknown): Promise<ClientRow | undefined> {
  if (typeof clientId !== "string" || !isUuid(clientId)) return undefined;
  const row = await ctx
    .db("oauth_clients")
    .where({ client_id: clientId })
    .first("client_id", "client_name", "redirect_uris");
  return row
    ? { client_id: row.client_id, client_name: row.client_name, redirect_uris: row.redirect_uris }
    : undefined;
}

/** Canonical hash of a request (consent nonce binding). */
export function requestHash(r: AuthorizationRequest): string {
  return sha256(
    JSON.stringify([r.client_id, r.redirect_uri, r.resource, r.scope, r.state, r.code_challenge]),
  );
}

/** Validates `params` (query of GET /mcp/oauth/authorize or hidden fields of the consent form). */
export async function validateAuthorizationRequest(
  ctx: AppContext,
  params: Record<string, unknown>,
): Promise<ValidationResult> {
  const client = await findClient(ctx, params.client_id);
  if (!client)
    return { kind: "page", message: "The application (client_id) is not registered with this service." };
  const redirectUri = params.redirect_uri;
  if (
    typeof redirectUri !== "string" ||
    !client.redirect_uris.some((r) => redirectUriMatches(r, redirectUri))
  ) {
    return { kind: "page", message: "The redirect_uri is missing or not registered for this application." };
  }
  const state = typeof params.state === "string" ? params.state : null;
  const fail = (error: OAuthErrorCode, description: string): ValidationResult => ({
    kind: "redirect",
    redirectUri,
    error,
    description,
    state,
  });
  for (const p of PARAMS) if (Array.isArray(params[p])) return fail("invalid_request", `${p} is repeated`);
  if (state !== null && state.length > 2000) return fail("invalid_request", "state is too long");
  if (params.response_type !== "code") return fail("unsupported_response_type", "response_type must be code");
  if (params.code_challenge_method !== "S256")
    return fail("invalid_request", "code_challenge_method must be S256 (plain is not supported)");
  if (typeof params.code_challenge !== "string" || !CHALLENGE.test(params.code_challenge))
    return fail("invalid_request", "code_challenge is required (43 base64url characters)");
  if (params.resource !== ctx.config.resourceUrl)
    return fail("invalid_target", "resource must be the MCP endpoint of this service");
  let scopes: Scope[];
  try {
    scopes = parseScope(typeof params.scope === "string" ? params.scope : undefined, {
      emptyMeansDefault: true,
    });
  } catch (err) {
    if (err instanceof OAuthError) return fail(err.code, err.description);
    throw err;
  }
  return {
    kind: "ok",
    client,
    scopes,
    request: {
      client_id: client.client_id,
      redirect_uri: redirectUri,
      resource: ctx.config.resourceUrl,
      scope: scopes.join(" "),
      state,
      code_challenge: params.code_challenge,
    },
  };
}

/**
 * The client redirect carrying `params` plus `iss` (RFC 9207) and `state` when the request had one.
 * Existing query parameters of the redirect URI are kept.
 */
export function clientRedirect(
  ctx: AppContext,
  redirectUri: string,
  state: string | null,
  params: Record<string, string>,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (state !== null) url.searchParams.set("state", state);
  url.searchParams.set("iss", ctx.config.issuerUrl);
  return url.toString();
}
