/**
 * Token minting (service spec 2.3): access tokens are ES256 JWTs (`typ: at+jwt`, RFC 9068
 * claims plus `client_id`, `scope`, `grant_id`, `workspace_id`), one hour; refresh tokens and codes are
 * opaque random strings stored only as SHA-256 hashes. Access records keep identifiers and revocation
 * state, never the token.
 */
import { SPEC_LIMITS } from "../config/index.ts";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";
import { sha256 } from "../crypto/seal.ts";
import { signingKeys } from "./keys.ts";

/** Access token lifetime, seconds (service spec 8). */
export const ACCESS_TOKEN_TTL = SPEC_LIMITS.accessTokenLifetimeSeconds;
/** Refresh token lifetime, seconds (service spec 8). */
export const REFRESH_TOKEN_TTL = SPEC_LIMITS.refreshTokenLifetimeSeconds;
/** Authorization code lifetime, seconds. */
export const CODE_TTL = 60;
/** A consumed refresh token presented later than this many seconds after use is treated as stolen. */
export const REFRESH_REUSE_GRACE = 60;

/** A 256-bit random value, base64url (43 characters). */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** SHA-256 hex of a code, refresh token or session id (the only form stored). */
export const hashSecret = sha256;

/** RFC 7636 section 4.2: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export interface GrantRow {
  id: string;
  user_id: string;
  workspace_id: string;
  client_id: string;
  resource: string;
  scope: string;
}

export interface IssuedTokens {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  /** Absent when the client is not registered for the `refresh_token` grant. */
  refresh_token?: string;
  scope: string;
  /** Id of the new refresh token row (for `replaced_by`); absent with `refresh_token`. */
  refreshId?: string;
}

/**
 * Records and signs a new access token for `grant` in `trx` and, when `refreshScope` is a string, a new
 * refresh token holding that scope. `refreshScope` is `null` for a client whose registered `grant_types`
 * lack `refresh_token` (RFC 7591 section 2, RFC 6749 section 5.1: the refresh token is optional): such a
 * client could never use one, so none is minted or stored.
 * `accessScope` may be narrower than `refreshScope` (refresh with a narrowed `scope`, RFC 6749 section 6).
 */
export async function issueTokens(
  ctx: AppContext,
  trx: Knex.Transaction,
  grant: GrantRow,
  accessScope: string,
  refreshScope: string | null,
): Promise<IssuedTokens> {
  const now = ctx.clock.now();
  const iat = Math.floor(now.getTime() / 1000);
  const jti = randomUUID();
  await trx("oauth_access_tokens").insert({
    jti,
    grant_id: grant.id,
    scope: accessScope,
    expires_at: new Date((iat + ACCESS_TOKEN_TTL) * 1000),
  });
  const keys = await signingKeys(ctx.keys);
  const access = await new SignJWT({
    client_id: grant.client_id,
    scope: accessScope,
    grant_id: grant.id,
    workspace_id: grant.workspace_id,
  })
    .setProtectedHeader({ alg: keys.sign.alg, kid: keys.sign.kid, typ: "at+jwt" })
    .setIssuer(ctx.config.issuerUrl)
    .setAudience(grant.resource)
    .setSubject(grant.user_id)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL)
    .sign(keys.sign.key);
  const issued: IssuedTokens = {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL,
    scope: accessScope,
  };
  if (refreshScope === null) return issued;
  const refresh = randomToken();
  const [row] = await trx("oauth_refresh_tokens")
    .insert({
      token_hash: hashSecret(refresh),
      grant_id: grant.id,
      scope: refreshScope,
      expires_at: new Date(now.getTime() + REFRESH_TOKEN_TTL * 1000),
    })
    .returning("id");
  return { ...issued, refresh_token: refresh, refreshId: row.id as string };
}
