/**
 * Bearer token validation for /mcp (service spec 5.8, RFC 6750, RFC 9068): signature
 * (persistent key set, `kid`, ES256 only), `typ: at+jwt`, `iss`, `aud` = the exact resource, expiry, then
 * the access-token record, the live grant (not revoked, same client, user, workspace and resource), the
 * account status, the workspace's status and the current membership in the token's workspace. Only the Authorization header is
 * accepted. `last_used_at` of the grant is written at most once a minute.
 *
 * Hot path (bench/README.md): the signature check of a token is remembered per process (`verifyJwt`: the
 * signature and the static claims of a given token never change; `exp`/`nbf` are re-checked against the
 * clock on every use), and everything that can change (revocation, grant, account status, membership) is
 * read by ONE prepared statement on every request, never cached.
 */
import { isUuid } from "../ids.ts";
import { hash } from "node:crypto";
import type { Request } from "express";
import { errors as joseErrors, jwtVerify } from "jose";
import type { AppContext } from "../context.ts";
import type { AuthContext } from "../tool-contract.ts";
import { runPrepared, statement } from "../db/prepared.ts";
import { signingKeys } from "./keys.ts";

/** Why authentication failed; only `tokenPresented` reaches the wire (as `error="invalid_token"`). */
export class BearerError extends Error {
  readonly tokenPresented: boolean;
  /** Internal reason for the logs; never sent to the client. */
  readonly reason: string;
  constructor(tokenPresented: boolean, reason: string = tokenPresented ? "invalid token" : "no token") {
    super(tokenPresented ? "invalid token" : "no token");
    this.tokenPresented = tokenPresented;
    this.reason = reason;
    this.name = "BearerError";
  }
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** Minimum seconds between two `last_used_at` writes of one grant. */
const LAST_USED_RESOLUTION = 60;

/**
 * Everything that can revoke a token, read in one statement on every request: the access-token records
 * whose `jti` is in `jtis` (a placeholder of the caller's statement for a uuid array, e.g. "$5::uuid[]"),
 * each with its `jti`, its grant, the account and workspace statuses and the membership in the grant's
 * workspace (null when removed). At most one row per jti (it is the key). Used by the /mcp admission statement
 * (src/mcp/admission.ts), which counts the batch's IPs and budgets in the same round trip, and, for one
 * token, by `authenticateBearer`.
 */
export function tokenRecordsSql(jtis: string): string {
  // One index lookup per jti (a lateral join): `t.jti = any(array)` gets a generic plan that hashes a
  // sequential scan of the grants instead.
  return `select j.jti, r.*
     from unnest(${jtis}) as j(jti)
     cross join lateral (
       select t.revoked_at as token_revoked_at, t.expires_at, t.scope as token_scope,
              g.id as grant_id, g.user_id, g.workspace_id, g.client_id, g.resource, g.scope as grant_scope,
              g.revoked_at as grant_revoked_at, g.last_used_at,
              u.status as user_status, w.status as workspace_status, m.user_id as member
         from oauth_access_tokens t
         join oauth_grants g on g.id = t.grant_id
         join users u on u.id = g.user_id
         join workspaces w on w.id = g.workspace_id
         left join memberships m on m.workspace_id = g.workspace_id and m.user_id = g.user_id
        where t.jti = j.jti
        limit 1) r`;
}

const TOKEN_LOOKUP = statement("bearer-token-records", tokenRecordsSql("$1::uuid[]"));

/** The record of a token as `tokenRecordsSql` reads it. */
export interface TokenRow {
  jti: string;
  token_revoked_at: Date | null;
  expires_at: Date;
  token_scope: string;
  grant_id: string;
  user_id: string;
  workspace_id: string;
  client_id: string;
  resource: string;
  grant_scope: string;
  grant_revoked_at: Date | null;
  last_used_at: Date | null;
  user_status: string;
  workspace_status: string;
  member: string | null;
}

/** A verified token: its claims, and its `exp` and `nbf` (seconds since the epoch). */
interface Verified {
  claims: BearerClaims;
  exp: number;
  nbf: number | undefined;
}

/** Tokens whose signature and static claims were verified, by SHA-256 of the token (bounded, per context). */
const MAX_VERIFIED = 10_000;
const verified = new WeakMap<AppContext, { keys: AppContext["keys"]; tokens: Map<string, Verified> }>();

function fail(reason: string): never {
  throw new BearerError(true, reason);
}

/** The verified claims of a bearer token that identify its record (all uuids) and its scope. */
export interface BearerClaims {
  jti: string;
  sub: string;
  client_id: string;
  grant_id: string;
  workspace_id: string;
  scope: string;
}

/**
 * Reads and verifies the request's `Authorization: Bearer` token without touching the database: refuses a
 * token in the query string or body, checks the header's form, the JWT (verifyJwt) and its claims.
 * @returns the claims to look the token's record up with (`tokenRecordsSql`), then `acceptToken`.
 * @throws BearerError when missing (`tokenPresented` false) or invalid for any reason (true).
 */
export async function readBearer(ctx: AppContext, req: Request): Promise<BearerClaims> {
  const query = (req.query ?? {}) as Record<string, unknown>;
  if (query.access_token !== undefined) throw new BearerError(true, "token in query string");
  const body = req.body as Record<string, unknown> | undefined;
  if (body && typeof body === "object" && !Array.isArray(body) && "access_token" in body)
    throw new BearerError(true, "token in body");
  const header = req.headers.authorization;
  if (!header) throw new BearerError(false);
  const match = BEARER.exec(header);
  if (!match) {
    if (/^bearer\b/i.test(header)) fail("malformed bearer header");
    throw new BearerError(false, "not a bearer header");
  }
  return verifyJwt(ctx, match[1]!);
}

/** The claims of a verified payload that identify the token's record. @throws BearerError when malformed. */
function claimsOf(payload: Record<string, unknown>): BearerClaims {
  const { sub, jti, client_id, grant_id, workspace_id, scope } = payload;
  for (const v of [sub, jti, client_id, grant_id, workspace_id])
    if (typeof v !== "string" || !isUuid(v)) fail("claim missing or not a uuid");
  if (typeof scope !== "string") fail("scope claim missing");
  return payload as unknown as BearerClaims;
}

/**
 * Judges the token's record (`row`, from `tokenRecordsSql`, undefined when there is none) against its
 * claims: not revoked, not expired, same grant, client, user and workspace, this resource, an active
 * account and workspace, a current membership. The scopes are those of the claim that the grant and the record still
 * hold. Records the grant's use (`last_used_at`, at most once a minute).
 * @returns the caller's identity, workspace, grant, client and scopes. @throws BearerError (invalid token).
 */
export async function acceptToken(
  ctx: AppContext,
  claims: BearerClaims,
  row: TokenRow | undefined,
): Promise<AuthContext> {
  const now = ctx.clock.now();
  if (!row) fail("unknown jti");
  if (row.token_revoked_at || row.grant_revoked_at) fail("revoked");
  if (new Date(row.expires_at).getTime() <= now.getTime()) fail("expired record");
  if (
    row.grant_id !== claims.grant_id ||
    row.client_id !== claims.client_id ||
    row.user_id !== claims.sub ||
    row.workspace_id !== claims.workspace_id
  )
    fail("claims differ from grant");
  if (row.resource !== ctx.config.resourceUrl) fail("grant for another resource");
  if (row.user_status !== "active") fail("account not active");
  if (row.workspace_status !== "active") fail("workspace not active");
  if (!row.member) fail("membership removed");
  const granted = new Set(String(row.grant_scope).split(" "));
  const held = String(row.token_scope).split(" ");
  const scopes = new Set(claims.scope.split(" ").filter((s) => s && granted.has(s) && held.includes(s)));
  await touchGrant(ctx, row.grant_id, row.last_used_at, now);
  return {
    userId: row.user_id,
    workspaceId: row.workspace_id,
    grantId: row.grant_id,
    clientId: row.client_id,
    scopes,
    tokenId: claims.jti,
  };
}

/**
 * Authenticates the request's `Authorization: Bearer` header (query-string tokens are refused):
 * `readBearer`, the record by one prepared statement, `acceptToken`.
 * @returns the caller's identity, workspace, grant, client and scopes.
 * @throws BearerError when missing (`tokenPresented` false) or invalid for any reason (true).
 */
export async function authenticateBearer(ctx: AppContext, req: Request): Promise<AuthContext> {
  const claims = await readBearer(ctx, req);
  const [row] = await runPrepared<TokenRow>(ctx.db, TOKEN_LOOKUP, [[claims.jti]]);
  return acceptToken(ctx, claims, row);
}

/**
 * Verifies the access token JWT (RFC 9068 section 4): ES256 signature by a configured key, `typ: at+jwt`,
 * `iss`, `aud`, required claims and `exp`/`nbf` against `ctx.clock`, then its claims (`claimsOf`). A token
 * verified once is remembered (by its SHA-256) with its claims, so that later uses only re-check `exp`
 * and `nbf`; failures are never remembered.
 * @returns the token's claims. @throws BearerError on any failure.
 */
async function verifyJwt(ctx: AppContext, token: string): Promise<BearerClaims> {
  let entry = verified.get(ctx);
  if (!entry || entry.keys !== ctx.keys) {
    // A new key set invalidates what the old one verified.
    entry = { keys: ctx.keys, tokens: new Map() };
    verified.set(ctx, entry);
  }
  const cache = entry.tokens;
  const id = hash("sha256", token, "base64url");
  const now = ctx.clock.now();
  const known = cache.get(id);
  if (known) {
    const seconds = Math.floor(now.getTime() / 1000);
    if (known.exp <= seconds) {
      cache.delete(id);
      fail("jwt: ERR_JWT_EXPIRED");
    }
    if (known.nbf !== undefined && known.nbf > seconds) fail("jwt: ERR_JWT_CLAIM_VALIDATION_FAILED");
    return known.claims;
  }
  const keys = await signingKeys(ctx.keys);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keys.verify, {
      algorithms: ["ES256"],
      typ: "at+jwt",
      issuer: ctx.config.issuerUrl,
      audience: ctx.config.resourceUrl,
      currentDate: now,
      requiredClaims: ["exp", "iat", "sub", "jti"],
    }));
  } catch (err) {
    fail(err instanceof joseErrors.JOSEError ? `jwt: ${err.code}` : "jwt: unreadable");
  }
  const claims = claimsOf(payload);
  if (cache.size >= MAX_VERIFIED) {
    // Drop the oldest entry (Map keeps insertion order).
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(id, {
    claims,
    exp: payload.exp as number,
    nbf: typeof payload.nbf === "number" ? payload.nbf : undefined,
  });
  return claims;
}

/** Writes `last_used_at` when it is older than LAST_USED_RESOLUTION (one conditional write per minute). */
async function touchGrant(ctx: AppContext, grantId: string, lastUsed: Date | null, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - LAST_USED_RESOLUTION * 1000);
  if (lastUsed && new Date(lastUsed).getTime() > cutoff.getTime()) return;
  try {
    await ctx
      .db("oauth_grants")
      .where({ id: grantId })
      .andWhere((q) => q.whereNull("last_used_at").orWhere("last_used_at", "<=", cutoff))
      .update({ last_used_at: now });
  } catch (err) {
    ctx.log.warn(
      { err: { name: (err as Error).name }, grant_id: grantId },
      "could not record last use of a grant",
    );
  }
}
