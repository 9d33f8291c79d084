/**
 * The token endpoint `POST /mcp/oauth/token` (service spec 4.5, RFC 6749 sections 4.1.3
 * and 6, RFC 7636 section 4.6, RFC 8707 section 2.2, OAuth 2.1 section 4.3.1). Form data only, public
 * clients (`client_id`, no secret), no CSRF cookie. Every response is `Cache-Control: no-store`.
 *
 * - authorization_code: one-time; any presentation consumes the code; a failed or repeated presentation
 *   also revokes the grant (a leaked code cannot be redeemed later). A refresh token is issued only to a
 *   client registered with the `refresh_token` grant type (RFC 7591 section 2).
 * - refresh_token: all checks first, then atomic rotation (presented token consumed, new pair issued). A
 *   consumed token presented again -> invalid_grant; more than REFRESH_REUSE_GRACE seconds after it was
 *   consumed it is treated as stolen and the whole grant is revoked.
 */
import type { Request, Response } from "express";
import Type, { type Static, type TObject } from "typebox";
import { Value } from "typebox/value";
import { isUuid } from "../ids.ts";
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";
import { OAuthError } from "./errors.ts";
import { isActiveMember, revokeGrant } from "./grants.ts";
import { parseScope } from "./scope.ts";
import {
  type GrantRow,
  hashSecret,
  type IssuedTokens,
  issueTokens,
  REFRESH_REUSE_GRACE,
  s256,
} from "./tokens.ts";

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

type Params = Record<string, unknown>;

/** One form parameter: a single non-empty value of at most 4096 characters. */
const Param = Type.String({ minLength: 1, maxLength: 4096 });

/** Access token request with an authorization code (RFC 6749 4.1.3, RFC 7636 4.5, RFC 8707 2.2). */
const AuthorizationCodeRequest = Type.Object({
  grant_type: Type.Literal("authorization_code"),
  client_id: Param,
  code: Param,
  redirect_uri: Type.Optional(Param),
  code_verifier: Type.Optional(Param),
  resource: Type.Optional(Param),
});
type AuthorizationCodeRequest = Static<typeof AuthorizationCodeRequest>;

/** Refresh request (RFC 6749 6, RFC 8707 2.2): `scope` may narrow the access token's scopes. */
const RefreshTokenRequest = Type.Object({
  grant_type: Type.Literal("refresh_token"),
  client_id: Param,
  refresh_token: Param,
  scope: Type.Optional(Param),
  resource: Type.Optional(Param),
});
type RefreshTokenRequest = Static<typeof RefreshTokenRequest>;

/**
 * Reads the parameters `schema` names from the form (others are ignored, RFC 6749 3.2): an empty value
 * counts as absent (RFC 6749 3.1).
 * @throws OAuthError invalid_request naming the parameter: repeated, required, or malformed.
 */
function parseRequest<T extends TObject>(schema: T, params: Params): Static<T> {
  const required = new Set<string>(schema.required ?? []);
  const picked: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(schema.properties)) {
    const v = params[name];
    if (Array.isArray(v)) throw new OAuthError("invalid_request", `${name} is repeated`);
    if (v === undefined || v === "") {
      if (required.has(name)) throw new OAuthError("invalid_request", `${name} is required`);
      continue;
    }
    if (!Value.Check(rule, v)) throw new OAuthError("invalid_request", `${name} is malformed`);
    picked[name] = v;
  }
  if (!Value.Check(schema, picked)) throw new OAuthError("invalid_request", "the request is malformed");
  return picked;
}

/** A registered public client as the token endpoint sees it. */
interface TokenClient {
  id: string;
  /** Whether the registered `grant_types` include `refresh_token` (RFC 7591 section 2). */
  mayRefresh: boolean;
}

/**
 * Checks the public client: known id (otherwise invalid_client, 401) registered for the requested
 * `grant_type` (otherwise unauthorized_client, RFC 6749 section 5.2).
 */
async function requireClient(
  request: { client_id: string; grant_type: string },
  trx: Knex.Transaction,
): Promise<TokenClient> {
  const id = request.client_id;
  if (!isUuid(id)) throw new OAuthError("invalid_client", "client_id is not a registered client");
  const row = await trx("oauth_clients").where({ client_id: id }).first("client_id", "grant_types");
  if (!row) throw new OAuthError("invalid_client", "client_id is not a registered client");
  const grantType = request.grant_type;
  const grantTypes: string[] = row.grant_types;
  if (!grantTypes.includes(grantType))
    throw new OAuthError("unauthorized_client", `the client is not registered for ${grantType}`);
  return { id, mayRefresh: grantTypes.includes("refresh_token") };
}

function requireResource(ctx: AppContext, resource: string | undefined, expected: string): void {
  if (resource !== ctx.config.resourceUrl || resource !== expected)
    throw new OAuthError("invalid_target", "resource must be the MCP endpoint the grant was issued for");
}

/** A deferred side effect that must commit even though the request fails (revocation on misuse). */
class FailAfterCommit extends Error {
  readonly error: OAuthError;
  constructor(error: OAuthError) {
    super(error.message);
    this.error = error;
  }
}

async function liveGrant(trx: Knex.Transaction, grantId: string): Promise<GrantRow> {
  const grant = await trx("oauth_grants").where({ id: grantId }).forUpdate().first();
  if (!grant || grant.revoked_at) throw new OAuthError("invalid_grant", "the grant was revoked");
  if (!(await isActiveMember(trx, grant.user_id, grant.workspace_id)))
    throw new OAuthError("invalid_grant", "the grant is no longer valid");
  return grant as GrantRow;
}

async function exchangeCode(
  ctx: AppContext,
  request: AuthorizationCodeRequest,
  trx: Knex.Transaction,
): Promise<IssuedTokens> {
  const client = await requireClient(request, trx);
  const clientId = client.id;
  const code = request.code;
  const now = ctx.clock.now();
  const row = await trx("oauth_authorization_codes")
    .where({ code_hash: hashSecret(code) })
    .forUpdate()
    .first();
  if (!row) throw new OAuthError("invalid_grant", "the code is invalid");
  if (row.consumed_at) {
    await revokeGrant(ctx, row.grant_id, "code_reuse", trx);
    throw new FailAfterCommit(new OAuthError("invalid_grant", "the code was already used"));
  }
  await trx("oauth_authorization_codes").where({ code_hash: row.code_hash }).update({ consumed_at: now });
  // From here on the code is spent: every refusal commits (the consumption and, for misuse, the revocation).
  const misuse = async (error: OAuthError): Promise<never> => {
    await revokeGrant(ctx, row.grant_id, "code_misuse", trx);
    throw new FailAfterCommit(error);
  };
  if (new Date(row.expires_at).getTime() <= now.getTime())
    return misuse(new OAuthError("invalid_grant", "the code expired"));
  if (row.client_id !== clientId)
    return misuse(new OAuthError("invalid_grant", "the code was issued to another client"));
  if (request.redirect_uri !== row.redirect_uri)
    return misuse(new OAuthError("invalid_grant", "redirect_uri differs from the authorization request"));
  const verifier = request.code_verifier;
  if (!verifier || !VERIFIER.test(verifier) || s256(verifier) !== row.code_challenge)
    return misuse(new OAuthError("invalid_grant", "code_verifier does not match the code_challenge"));
  try {
    requireResource(ctx, request.resource, row.resource);
  } catch (err) {
    return misuse(err as OAuthError);
  }
  let grant: GrantRow;
  try {
    grant = await liveGrant(trx, row.grant_id);
  } catch (err) {
    if (err instanceof OAuthError) throw new FailAfterCommit(err);
    throw err;
  }
  // A client registered without the refresh_token grant gets no refresh token (it could never use one).
  return issueTokens(ctx, trx, grant, row.scope, client.mayRefresh ? row.scope : null);
}

async function refresh(
  ctx: AppContext,
  request: RefreshTokenRequest,
  trx: Knex.Transaction,
): Promise<IssuedTokens> {
  // requireClient refuses (unauthorized_client) a client registered without the refresh_token grant.
  const clientId = (await requireClient(request, trx)).id;
  const token = request.refresh_token;
  const now = ctx.clock.now();
  const row = await trx("oauth_refresh_tokens")
    .where({ token_hash: hashSecret(token) })
    .forUpdate()
    .first();
  if (!row) throw new OAuthError("invalid_grant", "the refresh token is invalid");
  const grant = await trx("oauth_grants").where({ id: row.grant_id }).forUpdate().first();
  if (!grant || grant.client_id !== clientId)
    throw new OAuthError("invalid_grant", "the refresh token is invalid");
  if (row.consumed_at) {
    const age = (now.getTime() - new Date(row.consumed_at).getTime()) / 1000;
    if (age > REFRESH_REUSE_GRACE) {
      await revokeGrant(ctx, row.grant_id, "refresh_reuse", trx);
      throw new FailAfterCommit(new OAuthError("invalid_grant", "the refresh token was already used"));
    }
    throw new OAuthError("invalid_grant", "the refresh token was already used");
  }
  if (row.revoked_at || grant.revoked_at) throw new OAuthError("invalid_grant", "the grant was revoked");
  if (new Date(row.expires_at).getTime() <= now.getTime())
    throw new OAuthError("invalid_grant", "the refresh token expired");
  requireResource(ctx, request.resource, grant.resource);
  const held = new Set(String(row.scope).split(" ").filter(Boolean));
  const asked = parseScope(request.scope, { emptyMeansDefault: false });
  for (const s of asked)
    if (!held.has(s)) throw new OAuthError("invalid_scope", `scope ${s} was not granted`);
  const accessScope = asked.length > 0 ? asked.join(" ") : row.scope;
  const live = await liveGrant(trx, grant.id);
  const issued = await issueTokens(ctx, trx, live, accessScope, row.scope);
  await trx("oauth_refresh_tokens")
    .where({ id: row.id })
    .update({ consumed_at: now, replaced_by: issued.refreshId ?? null });
  return issued;
}

/**
 * Handles a token request (`req.body` parsed as form data). Writes the RFC 6749 5.1 success body
 * `{access_token, token_type: "Bearer", expires_in: 3600, refresh_token, scope}` or a 5.2 error;
 * `refresh_token` is left out for a client whose registered `grant_types` lack `refresh_token`.
 */
export async function tokenEndpoint(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const params = (req.body ?? {}) as Params;
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Pragma", "no-cache");
  try {
    if (!req.is("application/x-www-form-urlencoded"))
      throw new OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded");
    const grantType = parseRequest(Type.Object({ grant_type: Param }), params).grant_type;
    if (grantType !== "authorization_code" && grantType !== "refresh_token")
      throw new OAuthError(
        "unsupported_grant_type",
        "grant_type must be authorization_code or refresh_token",
      );
    const request =
      grantType === "authorization_code"
        ? parseRequest(AuthorizationCodeRequest, params)
        : parseRequest(RefreshTokenRequest, params);
    let deferred: OAuthError | undefined;
    const issued = await ctx.db.transaction(async (trx) => {
      try {
        return request.grant_type === "authorization_code"
          ? await exchangeCode(ctx, request, trx)
          : await refresh(ctx, request, trx);
      } catch (err) {
        if (err instanceof FailAfterCommit) {
          deferred = err.error;
          return undefined;
        }
        throw err;
      }
    });
    if (deferred || !issued) throw deferred ?? new OAuthError("server_error", "no tokens issued");
    const { refreshId: _, ...body } = issued;
    res.status(200).json(body);
  } catch (err) {
    if (err instanceof OAuthError) {
      ctx.log.info({ error: err.code, reason: err.description }, "token request refused");
      return err.toResponse(res);
    }
    throw err;
  }
}
