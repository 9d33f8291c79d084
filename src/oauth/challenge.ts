/**
 * `WWW-Authenticate` challenges of the MCP endpoint (RFC 6750 section 3, RFC 9728 section 5.1, service
 * spec 5.3 and 7). The MCP endpoint renders the 401/403 responses; this module builds the header values.
 */
import type { AppContext } from "../context.ts";
import { ALL_SCOPES } from "../scopes.ts";

/**
 * URL of the RFC 9728 protected resource metadata for the configured resource: the well-known path with
 * the resource's path appended, e.g. `https://host/.well-known/oauth-protected-resource/mcp`.
 */
export function resourceMetadataUrl(ctx: AppContext): string {
  const resource = new URL(ctx.config.resourceUrl);
  const suffix = resource.pathname === "/" ? "" : resource.pathname;
  return `${resource.origin}/.well-known/oauth-protected-resource${suffix}`;
}

function quote(value: string): string {
  return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * The 401 challenge: `Bearer resource_metadata="<PRM URL>", scope="<scopes>"`, plus
 * `, error="invalid_token"` when the request carried a token (missing tokens get no error code, RFC 6750
 * section 3.1). `scope` (RFC 6750 section 3; MCP authorization "scope selection": clients use it first)
 * lists the same scopes as the protected resource metadata's `scopes_supported`, so a client following
 * either source asks for the same consent.
 */
export function challenge401(ctx: AppContext, tokenPresented: boolean): string {
  let value = `Bearer resource_metadata=${quote(resourceMetadataUrl(ctx))}, scope=${quote(ALL_SCOPES.join(" "))}`;
  if (tokenPresented) value += `, error="invalid_token"`;
  return value;
}

/**
 * The 403 challenge for a known tool whose scope the token lacks:
 * `Bearer error="insufficient_scope", scope="<scopes>", resource_metadata="<PRM URL>", error_description="..."`.
 * `scopes` is every scope the operation needs (space-joined).
 */
export function challenge403(ctx: AppContext, scopes: readonly string[], description?: string): string {
  const desc =
    description ?? `The access token lacks the scope ${scopes.join(" ")}; a new consent is required.`;
  return [
    `Bearer error="insufficient_scope"`,
    `scope=${quote(scopes.join(" "))}`,
    `resource_metadata=${quote(resourceMetadataUrl(ctx))}`,
    `error_description=${quote(desc.replace(/[^\x20-\x7e]/g, " "))}`,
  ].join(", ");
}
