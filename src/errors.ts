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

/**
 * How an agent recovers from an error (`error.retry`, DESIGN.md section 3), consistent with the idempotency
 * rules of src/runtime/idempotency.ts: a failed call's key keeps its failure, except `rate_limited` and
 * `internal_error`, whose calls stored nothing.
 */
export const RETRY_ADVICE = {
  same_key: "Repeat the identical call (same idempotency_key, same arguments): nothing was stored.",
  new_key: "Fix the cause named by the error, then call again with a new idempotency_key.",
  after_user_action:
    "A person must act first (reconnect an account, buy credits, change plan) at `details.action_url`; then call again with a new idempotency_key.",
  never: "Do not retry: inspect the existing records first, or stop.",
} as const;

export type Retry = keyof typeof RETRY_ADVICE;

/** All retry values, in RETRY_ADVICE order. */
export const retryValues = Object.keys(RETRY_ADVICE) as Retry[];

/**
 * The default `retry` of each code. `forbidden` and `account_setup_required` are errors a person fixes in the
 * browser, so they carry `after_user_action` when the error names the page (`ToolError.actionPath`) and
 * `new_key` otherwise (a scope or an authorization the agent cannot change becomes `never` where raised).
 */
export const RETRY_BY_CODE: Record<ErrorCode, Retry> = {
  invalid_arguments: "new_key",
  validation_failed: "new_key",
  not_found: "new_key",
  insufficient_scope: "after_user_action",
  forbidden: "new_key",
  account_setup_required: "after_user_action",
  integration_disabled: "never",
  idempotency_conflict: "new_key",
  rate_limited: "same_key",
  internal_error: "same_key",
  outcome_unknown: "never",
};

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

/** How a ToolError says who must act: `retry` overrides RETRY_BY_CODE; `actionPath` is a page of this service. */
export interface RecoveryHint {
  retry?: Retry | undefined;
  /**
   * The service page where a person fixes the cause (`/settings#billing`, `/settings/social`): the envelope
   * gives it as the absolute `details.action_url` and the retry becomes `after_user_action`.
   */
  actionPath?: string | undefined;
}

/**
 * A failure a tool handler or a pipeline step reports to the agent. Becomes an `isError: true` result whose
 * `structuredContent.error` is `{code, message, request_id, retry, retry_after?, details?}`.
 * The message must be safe to show: never a secret, token, prompt, caption or provider text.
 */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly retryAfter?: number;
  readonly recovery: RecoveryHint;
  constructor(
    code: ErrorCode,
    message: string,
    details?: unknown,
    retryAfter?: number,
    recovery: RecoveryHint = {},
  ) {
    super(message);
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
    this.recovery = recovery;
    this.name = "ToolError";
  }

  /** The error's `retry`: its own, `after_user_action` when it names a page, else the code's default. */
  get retry(): Retry {
    if (this.recovery.retry) return this.recovery.retry;
    if (this.recovery.actionPath) return "after_user_action";
    return RETRY_BY_CODE[this.code];
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

/**
 * The not-found case of one item of a list argument, naming its JSON pointer (`/social_account_ids/1`) in the
 * message and in `details.path`, so the agent knows which id to fix.
 */
export function notFoundAt(what: string, path: string): ToolError {
  return new ToolError("not_found", `${what} not found at ${path}`, { path });
}

/**
 * The paths of this service's browser pages as messages name them (`/settings/social`, `/settings#billing`,
 * `/posts`, `/review`, ...), when they stand alone (after a space or an opening parenthesis, not inside a URL).
 */
const PAGE_PATH = /(^|[\s(])(\/(?:settings|posts|review|media|developers)(?![\w-])(?:[/#][\w/#-]*)?)/g;

/**
 * `text` with every page path of this service made absolute on `baseUrl` (DESIGN.md section 3: messages give
 * absolute URLs, which an agent can show the user as links).
 */
export function absoluteUrls(text: string, baseUrl: string): string {
  return text.replace(PAGE_PATH, (_m, before: string, path: string) => `${before}${baseUrl}${path}`);
}
