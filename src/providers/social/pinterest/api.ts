/**
 * Pinterest API v5 calls shared by the Pinterest OAuth, boards, publisher and metrics: one JSON request
 * function over a `SocialHttp` (../http.ts) and the mapping of Pinterest's error body `{code, message}` to
 * the adapter errors of ../network.ts.
 *
 * Mapping (https://developers.pinterest.com/docs/api/v5/introduction "Errors", the error examples of
 * https://github.com/pinterest/api-description v5/openapi.json, and
 * https://developers.pinterest.com/docs/reference/rate-limits/):
 * - HTTP 401, code 2 ("Authentication failed."), code 1104 (token not valid or expired), and HTTP 403 with
 *   code 3 (the token lacks a scope) -> NetworkAuthError: the account must reconnect;
 * - HTTP 429 (code 8 or 30) -> NetworkRateLimitError: `Retry-After`, else `X-RateLimit-Reset`, else 60 s;
 * - HTTP 5xx, timeouts, lost connections -> NetworkTransientError (`afterCreate` for create calls);
 * - anything else (400 with a code, 403 "not permitted", 404 board or Pin not found, ...) ->
 *   NetworkRejectedError with Pinterest's message.
 */
import { retryAfterSeconds, type SocialHttp } from "../http.ts";
import {
  NetworkAuthError,
  type NetworkError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../network.ts";
import { sendJson } from "../json-call.ts";
import { safeMessage } from "../network-text.ts";

/** The API v5 base URL. */
export const PINTEREST_API = "https://api.pinterest.com/v5";

/** Wait after a 429 that says nothing about when to come back, seconds. */
const DEFAULT_RATE_LIMIT_SECONDS = 60;
/** Pinterest error codes meaning the token is not (or no longer) valid. */
const AUTH_CODES = new Set([2, 1104]);
/** Pinterest error code of a token without the scope the call needs (HTTP 403). */
const SCOPE_CODE = 3;

/** A Pinterest refusal with the network's code (callers branch on `code`, e.g. 40 "Board not found."). */
export class PinterestRejectedError extends NetworkRejectedError {
  constructor(
    readonly code: number | undefined,
    readonly status: number,
    message: string,
  ) {
    super(`Pinterest refused the request (${code ?? `HTTP ${status}`}): ${message}`);
  }
}

export interface PinterestCall {
  method: "GET" | "POST";
  /** Path under `/v5`, e.g. `/pins` or `/boards/123/pins`. */
  path: string;
  query?: Record<string, string | undefined>;
  /** JSON body (POST). */
  json?: unknown;
  /** Sent as `Authorization: Bearer` (never in the URL). */
  accessToken: string;
  /** True for calls that create something on the network (a lost answer means outcome unknown). */
  create?: boolean;
  signal?: AbortSignal | undefined;
}

/**
 * Sends one API v5 call through `http` and returns the parsed JSON body (`{}` for an empty body).
 * @throws NetworkAuthError | NetworkRateLimitError | PinterestRejectedError | NetworkTransientError
 */
export async function pinterestRequest<T = Record<string, unknown>>(
  http: SocialHttp,
  call: PinterestCall,
): Promise<T> {
  const { res, body } = await sendJson(http, {
    network: "Pinterest",
    method: call.method,
    url: `${PINTEREST_API}${call.path}`,
    query: call.query,
    accessToken: call.accessToken,
    headers: { accept: "application/json" },
    json: call.json,
    create: call.create,
    signal: call.signal,
  });
  if (res.ok) return (body ?? {}) as T;
  throw pinterestError(res, body as PinterestErrorBody | undefined, call.create === true);
}

/** Pinterest's error body. */
export interface PinterestErrorBody {
  code?: number;
  message?: string;
}

/** Maps a failed Pinterest answer to the adapter error (see the module comment). */
export function pinterestError(
  res: Response,
  body: PinterestErrorBody | undefined,
  afterCreate: boolean,
): NetworkError {
  const code = typeof body?.code === "number" ? body.code : undefined;
  const message = safeMessage(body?.message || `HTTP ${res.status}`);
  if (res.status === 401 || (code !== undefined && AUTH_CODES.has(code)) || code === SCOPE_CODE) {
    return new NetworkAuthError(`Pinterest refused the account's credentials: ${message}`);
  }
  if (res.status === 429) {
    return new NetworkRateLimitError(`rate limited by Pinterest: ${message}`, rateLimitWait(res.headers));
  }
  if (res.status >= 500) {
    return new NetworkTransientError(
      `Pinterest failed temporarily (HTTP ${res.status}): ${message}`,
      afterCreate,
    );
  }
  return new PinterestRejectedError(code, res.status, message);
}

/**
 * Seconds to wait after a 429: `Retry-After`, else `X-RateLimit-Reset` (seconds until the window resets;
 * a value that looks like a Unix time is taken as one), else 60.
 */
export function rateLimitWait(headers: Headers, now: Date = new Date()): number {
  const retry = retryAfterSeconds(headers, now);
  if (retry !== undefined) return retry;
  const reset = Number(headers.get("x-ratelimit-reset"));
  if (Number.isFinite(reset) && reset > 0) {
    return reset > 1_000_000_000 ? Math.max(0, Math.ceil(reset - now.getTime() / 1000)) : Math.ceil(reset);
  }
  return DEFAULT_RATE_LIMIT_SECONDS;
}
