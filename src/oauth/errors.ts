/**
 * OAuth error codes as the RFCs spell them (RFC 6749 sections 4.1.2.1 and 5.2, RFC 7591 section 3.2.2,
 * RFC 8707 section 2, RFC 7009 section 2.2.1) with one `toResponse()`. Descriptions are safe to show:
 * they name the parameter at fault, never a token or secret.
 */
import type { Response } from "express";

export const OAUTH_ERRORS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  unsupported_token_type: 400,
  server_error: 500,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

/** An RFC 6749 error; `status` is the HTTP status of a JSON error response. */
export class OAuthError extends Error {
  readonly status: number;
  readonly code: OAuthErrorCode;
  readonly description: string;
  constructor(code: OAuthErrorCode, description: string) {
    super(description);
    this.code = code;
    this.description = description;
    this.name = "OAuthError";
    this.status = OAUTH_ERRORS[code];
  }

  /** The JSON body `{error, error_description}`. */
  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }

  /** Sends the JSON error with `Cache-Control: no-store`. */
  toResponse(res: Response): void {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Pragma", "no-cache");
    res.status(this.status).json(this.toJSON());
  }
}
