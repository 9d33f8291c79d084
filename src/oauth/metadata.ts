/**
 * Discovery documents: RFC 9728 protected resource metadata and RFC 8414 authorization
 * server metadata, plus the public JWK set of the token signing keys. No Client ID Metadata Document
 * support is advertised (service spec 5.4).
 */
import type { AppContext } from "../context.ts";
import { ALL_SCOPES } from "../scopes.ts";

/** Absolute URLs of the OAuth endpoints (served under the public base URL). */
export function endpoints(ctx: AppContext) {
  const base = ctx.config.publicBaseUrl;
  return {
    authorization_endpoint: `${base}/mcp/oauth/authorize`,
    token_endpoint: `${base}/mcp/oauth/token`,
    registration_endpoint: `${base}/mcp/oauth/register`,
    revocation_endpoint: `${base}/mcp/oauth/revoke`,
    jwks_uri: `${base}/mcp/oauth/jwks.json`,
  };
}

/** RFC 9728 section 2: `resource` is the exact MCP endpoint, the issuer is the one authorization server. */
export function protectedResourceMetadata(ctx: AppContext) {
  return {
    resource: ctx.config.resourceUrl,
    authorization_servers: [ctx.config.issuerUrl],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Social MCP",
    resource_documentation: `${ctx.config.publicBaseUrl}/developers/mcp`,
  };
}

/** RFC 8414 section 2, with the RFC 9207 `iss` flag; `issuer` equals the configured issuer exactly. */
export function authorizationServerMetadata(ctx: AppContext) {
  return {
    issuer: ctx.config.issuerUrl,
    ...endpoints(ctx),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...ALL_SCOPES],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${ctx.config.publicBaseUrl}/developers/mcp`,
  };
}

/** Well-known paths of the two documents: the path-suffixed forms and the root aliases. */
export function metadataPaths(ctx: AppContext): { resource: string[]; server: string[] } {
  const resourcePath = new URL(ctx.config.resourceUrl).pathname.replace(/\/+$/, "");
  const issuerPath = new URL(ctx.config.issuerUrl).pathname.replace(/\/+$/, "");
  const uniq = (a: string[]) => [...new Set(a)];
  return {
    resource: uniq([
      `/.well-known/oauth-protected-resource${resourcePath}`,
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]),
    server: uniq([
      `/.well-known/oauth-authorization-server${issuerPath}`,
      "/.well-known/oauth-authorization-server",
    ]),
  };
}
