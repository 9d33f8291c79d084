/**
 * Token revocation `POST /mcp/oauth/revoke` (service spec 3.2, RFC 7009): form fields
 * `token`, `client_id`, optional `token_type_hint`. Revoking an access or a refresh token revokes its whole
 * grant (codes, access tokens, refresh tokens). Unknown tokens, or tokens of another client, still get 200
 * (RFC 7009 section 2.2) and change nothing.
 */
import { isUuid } from "../ids.ts";
import type { Request, Response } from "express";
import { compactVerify } from "jose";
import type { AppContext } from "../context.ts";
import { OAuthError } from "./errors.ts";
import { revokeGrant } from "./grants.ts";
import { findClient } from "./authorize-request.ts";
import { signingKeys } from "./keys.ts";
import { hashSecret } from "./tokens.ts";

/** The grant id a token belongs to, or undefined for an unknown, malformed or forged token. */
async function grantOf(ctx: AppContext, token: string): Promise<string | undefined> {
  if (token.split(".").length === 3) {
    try {
      const keys = await signingKeys(ctx.keys);
      const { payload, protectedHeader } = await compactVerify(token, keys.verify, { algorithms: ["ES256"] });
      if (protectedHeader.typ?.toLowerCase() !== "at+jwt") return undefined;
      const jti = (JSON.parse(new TextDecoder().decode(payload)) as { jti?: unknown }).jti;
      if (typeof jti !== "string" || !isUuid(jti)) return undefined;
      const row = await ctx.db("oauth_access_tokens").where({ jti }).first("grant_id");
      return row?.grant_id;
    } catch {
      return undefined;
    }
  }
  const row = await ctx
    .db("oauth_refresh_tokens")
    .where({ token_hash: hashSecret(token) })
    .first("grant_id");
  return row?.grant_id;
}

/** Handles a revocation request (`req.body` parsed as form data). */
export async function revokeEndpoint(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  res.setHeader("Cache-Control", "no-store");
  try {
    const client = await findClient(ctx, body.client_id);
    if (!client) throw new OAuthError("invalid_client", "client_id is not a registered client");
    const token = body.token;
    if (typeof token !== "string" || token.length === 0 || token.length > 8192)
      throw new OAuthError("invalid_request", "token is required");
    const grantId = await grantOf(ctx, token);
    if (grantId) {
      const grant = await ctx.db("oauth_grants").where({ id: grantId }).first("client_id");
      if (grant?.client_id === client.client_id) await revokeGrant(ctx, grantId, "token_revocation");
    }
    res.status(200).end();
  } catch (err) {
    if (err instanceof OAuthError) return err.toResponse(res);
    throw err;
  }
}
