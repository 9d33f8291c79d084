/**
 * Bearer token validation for /mcp (issue 3, service spec 5.8): signature (persistent key set, `kid`),
 * `iss`, `aud` = the exact resource, expiry, the live grant (not revoked, same client and resource), the
 * access-token record, account status and current membership in the token's workspace.
 * PLACEHOLDER: the OAuth issue replaces the body; the signature is the contract the MCP endpoint uses.
 */
import type { Request } from "express";
import type { AppContext } from "../context.ts";
import type { AuthContext } from "../runtime/types.ts";

/** Why authentication failed; only `tokenPresented` reaches the wire (as `error="invalid_token"`). */
export class BearerError extends Error {
  constructor(readonly tokenPresented: boolean) {
    super(tokenPresented ? "invalid token" : "no token");
    this.name = "BearerError";
  }
}

/**
 * Authenticates the request's `Authorization: Bearer` header (query-string tokens are refused).
 * @throws BearerError when missing or invalid for any reason.
 */
export async function authenticateBearer(_ctx: AppContext, req: Request): Promise<AuthContext> {
  throw new BearerError(Boolean(req.headers.authorization));
}
