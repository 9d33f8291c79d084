/**
 * The one registry of domain error codes (service spec section 7). The runtime, the catalog, the guide and
 * the tests all read it; nothing branches on message text.
 */

/** Domain error codes of service spec 7, in the spec's order. */
export const ERROR_CODES = {
  invalid_arguments: "The arguments are not of the tool's shape: an unknown argument or a malformed request.",
  validation_failed:
    "An argument broke a rule of the input schema or of the domain; `details` gives JSON pointers.",
  not_found: "No such record for this user and workspace (records of others are never revealed).",
  insufficient_scope: "The token lacks a scope the operation needs; a new consent is required.",
  forbidden: "The plan, the credits or the current authorization do not allow this action.",
  account_setup_required:
    "The account must be set up in the browser first (for example a connected social account).",
  integration_disabled: "The MCP integration is disabled by the operator.",
  idempotency_conflict: "The idempotency key was already used for this tool with different arguments.",
  rate_limited: "A per-user budget is exhausted; retry after `retry_after` seconds, with jitter.",
  internal_error: "The service failed; the request id identifies it in the operator's logs.",
  outcome_unknown:
    "The outcome of an operation cannot be confirmed; inspect existing records before retrying.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** All error codes, sorted as in the spec. */
export const errorCodes = Object.keys(ERROR_CODES) as ErrorCode[];

/** One validation failure, in the TypeBox/Ajv error shape (`instancePath`, `keyword`, `message`). */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
}

/**
 * A failure a tool handler or a pipeline step reports to the agent. Becomes an `isError: true` result whose
 * `structuredContent.error` is `{code, message, request_id, retry_after?, details?}`.
 * The message must be safe to show: never a secret, token, prompt, caption or provider text.
 */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly retryAfter?: number;
  constructor(code: ErrorCode, message: string, details?: unknown, retryAfter?: number) {
    super(message);
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
    this.name = "ToolError";
  }

  /**
   * A `validation_failed` error whose `details` is one issue in the TypeBox/Ajv shape (STYLE.md):
   * `{keyword, instancePath, schemaPath, params, message}`.
   * @param message the error's message (safe to show), e.g. "limit must be an integer from 1 to 50".
   * @param issue `path` is the JSON pointer of the argument (`/limit`, `""` for the whole arguments);
   *   `schemaPath` defaults to `#/properties<path>`, `params` to `{}`, `rule` (the issue's message) to
   *   `message`.
   */
  static validation(
    message: string,
    issue: {
      path: string;
      keyword: string;
      rule?: string;
      params?: Record<string, unknown>;
      schemaPath?: string;
    },
  ): ToolError {
    const detail: ValidationIssue = {
      keyword: issue.keyword,
      instancePath: issue.path,
      schemaPath: issue.schemaPath ?? `#/properties${issue.path}`,
      params: issue.params ?? {},
      message: issue.rule ?? message,
    };
    return new ToolError("validation_failed", message, [detail]);
  }
}

/** Shorthand for the not-found case that must not reveal whether another user's record exists. */
export function notFound(what: string): ToolError {
  return new ToolError("not_found", `${what} not found`);
}
