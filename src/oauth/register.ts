/**
 * Dynamic client registration `POST /mcp/oauth/register` (service spec 2.2, RFC 7591).
 * Public clients only: no secret is ever issued; `token_endpoint_auth_method` may be omitted or `none`
 * (RFC 7591 section 2: the server refuses metadata it does not support rather than registering a
 * different method silently). Errors: 400 `invalid_redirect_uri` or `invalid_client_metadata` with a
 * description naming the field.
 * Limits (routes.ts, service spec 8): per address per minute and per hour (before the body is read), then,
 * for valid metadata only, the hourly cap of every address together (`RATE_LIMIT_REGISTER_HOUR`): a refused
 * or invalid registration never counts against it (`consumeWithin`), so nobody can spend it with requests
 * that register nothing.
 */
import { SPEC_LIMITS } from "../config/index.ts";
import type { Request, Response } from "express";
import type { AppContext } from "../context.ts";
import { consumeWithin, limitSpec } from "../runtime/rate-limit.ts";
import { OAuthError } from "./errors.ts";
import { redirectUriProblem } from "./redirect-uri.ts";

const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);
/** Optional RFC 7591 string fields kept in `metadata` (never rendered as links or images). */
const STRING_FIELDS = [
  "client_uri",
  "logo_uri",
  "tos_uri",
  "policy_uri",
  "software_id",
  "software_version",
  "scope",
];

function stringArray(
  value: unknown,
  field: string,
  code: "invalid_client_metadata" | "invalid_redirect_uri",
): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new OAuthError(code, `${field} must be an array of strings`);
  return value as string[];
}

/** Validates RFC 7591 client metadata; returns the row to insert. @throws OAuthError naming the field. */
export function validateClientMetadata(body: unknown) {
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new OAuthError("invalid_client_metadata", "the body must be a JSON object");
  const m = body as Record<string, unknown>;
  const uris = stringArray(m.redirect_uris, "redirect_uris", "invalid_redirect_uri");
  const { min, max } = SPEC_LIMITS.redirectUrisPerClient;
  if (uris.length < min || uris.length > max)
    throw new OAuthError("invalid_redirect_uri", `redirect_uris must hold ${min} to ${max} URIs`);
  uris.forEach((u, i) => {
    const problem = redirectUriProblem(u);
    if (problem) throw new OAuthError("invalid_redirect_uri", `redirect_uris[${i}] ${problem}`);
  });
  const grantTypes =
    m.grant_types === undefined
      ? ["authorization_code", "refresh_token"]
      : stringArray(m.grant_types, "grant_types", "invalid_client_metadata");
  if (
    grantTypes.length === 0 ||
    grantTypes.some((g) => !GRANT_TYPES.has(g)) ||
    !grantTypes.includes("authorization_code")
  )
    throw new OAuthError(
      "invalid_client_metadata",
      "grant_types must include authorization_code and may add refresh_token only",
    );
  const responseTypes =
    m.response_types === undefined
      ? ["code"]
      : stringArray(m.response_types, "response_types", "invalid_client_metadata");
  if (responseTypes.length !== 1 || responseTypes[0] !== "code")
    throw new OAuthError("invalid_client_metadata", 'response_types must be ["code"]');
  if (m.client_name !== undefined && (typeof m.client_name !== "string" || m.client_name.length > 200))
    throw new OAuthError("invalid_client_metadata", "client_name must be a string of at most 200 characters");
  if (m.application_type !== undefined && m.application_type !== "web" && m.application_type !== "native")
    throw new OAuthError("invalid_client_metadata", "application_type must be web or native");
  if (m.token_endpoint_auth_method !== undefined && m.token_endpoint_auth_method !== "none")
    throw new OAuthError(
      "invalid_client_metadata",
      'token_endpoint_auth_method must be "none" (public clients with PKCE; no client secrets are issued)',
    );
  const metadata: Record<string, unknown> = {};
  for (const f of STRING_FIELDS) {
    const v = m[f];
    if (v === undefined) continue;
    if (typeof v !== "string" || v.length > 2000)
      throw new OAuthError("invalid_client_metadata", `${f} must be a string`);
    metadata[f] = v;
  }
  if (m.contacts !== undefined)
    metadata.contacts = stringArray(m.contacts, "contacts", "invalid_client_metadata").slice(0, 10);
  return {
    client_name: (m.client_name as string | undefined) ?? null,
    redirect_uris: uris,
    grant_types: [...new Set(grantTypes)],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    application_type: (m.application_type as string | undefined) ?? null,
    metadata,
  };
}

/** Handles a registration request (`req.body` parsed as JSON). 201 with the registered metadata. */
export async function registerEndpoint(ctx: AppContext, req: Request, res: Response): Promise<void> {
  res.setHeader("Cache-Control", "no-store");
  try {
    if (!req.is("application/json"))
      throw new OAuthError("invalid_client_metadata", "the body must be application/json");
    const client = validateClientMetadata(req.body);
    const perHour = ctx.config.limits.registerPerHour;
    const cap = await consumeWithin(ctx, limitSpec("register:all", perHour, 3600), "all");
    if (!cap.ok) {
      res.setHeader("Retry-After", String(cap.retryAfter));
      res.status(429).json({
        error: "rate_limited",
        error_description: `At most ${perHour} client registrations per hour are accepted; retry after ${cap.retryAfter} seconds`,
      });
      return;
    }
    const now = ctx.clock.now();
    const [row] = await ctx
      .db("oauth_clients")
      .insert({
        ...client,
        redirect_uris: JSON.stringify(client.redirect_uris),
        grant_types: JSON.stringify(client.grant_types),
        response_types: JSON.stringify(client.response_types),
        metadata: JSON.stringify(client.metadata),
        created_at: now,
      })
      .returning("client_id");
    ctx.log.info({ client_id: row.client_id }, "client registered");
    const { metadata, application_type, client_name, ...rest } = client;
    res.status(201).json({
      client_id: row.client_id,
      client_id_issued_at: Math.floor(now.getTime() / 1000),
      ...(client_name !== null ? { client_name } : {}),
      ...rest,
      ...(application_type !== null ? { application_type } : {}),
      ...metadata,
    });
  } catch (err) {
    if (err instanceof OAuthError) return err.toResponse(res);
    throw err;
  }
}
