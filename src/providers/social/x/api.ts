/**
 * X API v2 calls shared by the X OAuth, media upload, publisher and metrics: one request function over a
 * `SocialHttp` (../http.ts) with the user's OAuth 2.0 bearer token, and the mapping of X's errors to the
 * adapter errors of ../network.ts.
 *
 * X answers errors as RFC 7807 problem details, `{title, detail, type, status}`, sometimes with
 * `errors: [{message | detail, ...}]` (https://docs.x.com/x-api/fundamentals/response-codes-and-errors).
 * Mapping:
 * - HTTP 401, or 403 of type `.../unsupported-authentication` -> NetworkAuthError (revoked or expired token);
 * - HTTP 429 -> NetworkRateLimitError, waiting until the latest of `Retry-After`, `x-rate-limit-reset` (epoch
 *   seconds, when `x-rate-limit-remaining` is 0 or absent) and the 24-hour user/app post caps
 *   (`x-user-limit-24hour-reset`, `x-app-limit-24hour-reset` when their `-remaining` is 0), else 60 s
 *   (https://docs.x.com/x-api/fundamentals/rate-limits); except `.../usage-capped` (the app's monthly
 *   usage cap, no reset given) -> NetworkRejectedError naming it;
 * - HTTP 403 "You are not allowed to create a Tweet with duplicate content." -> `XDuplicateError` (a
 *   NetworkRejectedError the publisher checks after an armed create); other 403 (policy, suspended account,
 *   app not enrolled) -> NetworkRejectedError with X's detail;
 * - HTTP 5xx, timeouts, lost connections -> NetworkTransientError (`afterCreate` for create calls);
 * - anything else (400 invalid request, 404, ...) -> NetworkRejectedError with X's detail.
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

/** The X API v2 host. */
export const X_API = "https://api.x.com";

/** Wait when a 429 carries no reset header, seconds. */
const DEFAULT_RATE_LIMIT_SECONDS = 60;

/** X's problem details (and the `errors` list some endpoints add). */
export interface XProblem {
  title?: string;
  detail?: string;
  type?: string;
  status?: number;
  errors?: Array<{ message?: string; detail?: string; title?: string; type?: string }>;
}

/** X refused a post as a duplicate of one of the author's recent posts (HTTP 403). */
export class XDuplicateError extends NetworkRejectedError {}

export interface XCall {
  method: "GET" | "POST";
  /** Path on api.x.com, e.g. `/2/tweets`. */
  path: string;
  query?: Record<string, string>;
  /** JSON body. */
  json?: unknown;
  /** multipart/form-data body (media upload); the boundary is set by fetch. */
  form?: FormData;
  accessToken: string;
  /** True for the call that creates the post (a lost answer means outcome unknown). */
  create?: boolean;
  signal?: AbortSignal | undefined;
  /** Request timeout, seconds (default ../http.ts SOCIAL_HTTP_TIMEOUT_SECONDS). */
  timeoutSeconds?: number;
}

/**
 * Sends one X API v2 call through `http`; returns the parsed JSON body (`{data, errors?, meta?}`; `{}` for
 * an empty 2xx answer).
 * @throws NetworkAuthError | NetworkRateLimitError | NetworkRejectedError (XDuplicateError) |
 *   NetworkTransientError
 */
export async function xRequest<T = Record<string, unknown>>(
  http: SocialHttp,
  call: XCall,
  now: () => Date = () => new Date(),
): Promise<{ data?: T; errors?: XProblem["errors"]; meta?: Record<string, unknown> }> {
  const sent = await sendJson(http, {
    network: "X",
    method: call.method,
    url: `${X_API}${call.path}`,
    query: call.query,
    accessToken: call.accessToken,
    ...(call.form ? { body: call.form } : { json: call.json }),
    create: call.create,
    signal: call.signal,
    timeoutSeconds: call.timeoutSeconds,
  });
  const { res } = sent;
  const parsed = sent.raw ? sent.body : {};
  if (res.ok && parsed && typeof parsed === "object") return parsed as { data?: T };
  if (res.ok) throw new NetworkTransientError("X answered with an unreadable body", call.create === true);
  throw xError(res, parsed as XProblem | undefined, call.create === true, now());
}

/** X's explanation of a failed answer, trimmed and without anything token-like. */
export function problemText(status: number, problem: XProblem | undefined): string {
  const first = problem?.errors?.[0];
  return safeMessage(
    problem?.detail ?? first?.message ?? first?.detail ?? problem?.title ?? `HTTP ${status}`,
  );
}

/** Maps a failed X answer to the adapter error (see the module comment). */
export function xError(
  res: Response,
  problem: XProblem | undefined,
  afterCreate: boolean,
  now: Date = new Date(),
): NetworkError {
  const text = problemText(res.status, problem);
  const type = problem?.type ?? "";
  if (res.status === 401 || (res.status === 403 && type.endsWith("/unsupported-authentication"))) {
    return new NetworkAuthError(`X refused the account's credentials (HTTP ${res.status}): ${text}`);
  }
  if (res.status === 429) {
    if (type.endsWith("/usage-capped")) {
      return new NetworkRejectedError(
        `X refused the request: the app's X API usage cap is reached (${text}); raise it in the X developer console`,
      );
    }
    return new NetworkRateLimitError(`rate limited by X: ${text}`, xRateLimitWait(res.headers, now));
  }
  if (res.status === 403 && /duplicate content/i.test(text)) {
    return new XDuplicateError(`X refused the post as a duplicate of a recent post: ${text}`);
  }
  if (res.status >= 500) {
    return new NetworkTransientError(`X failed temporarily (HTTP ${res.status}): ${text}`, afterCreate);
  }
  return new NetworkRejectedError(`X refused the request (HTTP ${res.status}): ${text}`);
}

/**
 * Seconds to wait after a 429 from X's headers (see the module comment), at least 1.
 * @param now the current time (the reset headers are epoch seconds).
 */
export function xRateLimitWait(headers: Headers, now: Date): number {
  const reset = (prefix: string): number | undefined => {
    const at = Number(headers.get(`${prefix}-reset`));
    return Number.isFinite(at) && at > 0 ? Math.max(0, Math.ceil(at - now.getTime() / 1000)) : undefined;
  };
  const exhausted = (prefix: string, absentCounts: boolean) => {
    const left = headers.get(`${prefix}-remaining`);
    return left === null ? absentCounts : Number(left) <= 0;
  };
  const waits = [
    retryAfterSeconds(headers, now),
    exhausted("x-rate-limit", true) ? reset("x-rate-limit") : undefined,
    exhausted("x-user-limit-24hour", false) ? reset("x-user-limit-24hour") : undefined,
    exhausted("x-app-limit-24hour", false) ? reset("x-app-limit-24hour") : undefined,
  ].filter((w): w is number => w !== undefined);
  return Math.max(1, waits.length > 0 ? Math.max(...waits) : DEFAULT_RATE_LIMIT_SECONDS);
}
