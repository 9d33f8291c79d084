/**
 * X API v2 calls shared by the X OAuth, media upload, publisher and metrics: one request function over a
 * `SocialHttp` (../http.ts) with the user's OAuth 2.0 bearer token, and the mapping of X's errors: X's
 * table (./table.ts) through ../api-errors.ts, after X's special answers:
 * - HTTP 403 of type `.../unsupported-authentication` -> NetworkAuthError (revoked or expired token);
 * - HTTP 429 of type `.../usage-capped` (the app's monthly usage cap, no reset given) -> NetworkRejectedError
 *   naming it;
 * - HTTP 403 "You are not allowed to create a Tweet with duplicate content." -> `XDuplicateError` (a
 *   NetworkRejectedError the publisher checks after an armed create); other 403 (policy, suspended account,
 *   app not enrolled) -> NetworkRejectedError with X's detail.
 * X answers errors as RFC 7807 problem details, `{title, detail, type, status}`, sometimes with
 * `errors: [{message | detail, ...}]` (https://docs.x.com/x-api/fundamentals/response-codes-and-errors).
 */
import { apiError } from "../api-errors.ts";
import type { SocialHttp } from "../http.ts";
import { type ApiCall, apiRequest } from "../json-call.ts";
import {
  NetworkAuthError,
  type NetworkError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../network.ts";
import { safeMessage } from "../network-text.ts";
import { X } from "./table.ts";

export { X_API, xRateLimitWait } from "./table.ts";

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

/** One X API call: `path` on api.x.com, e.g. `/2/tweets`; a multipart upload sends its FormData as `body`. */
export interface XCall extends ApiCall {
  accessToken: string;
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
  const sent = await apiRequest(X.api, http, call);
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
  if (res.status === 403 && type.endsWith("/unsupported-authentication"))
    return new NetworkAuthError(`X refused the account's credentials (HTTP ${res.status}): ${text}`);
  if (res.status === 429 && type.endsWith("/usage-capped"))
    return new NetworkRejectedError(
      `X refused the request: the app's X API usage cap is reached (${text}); raise it in the X developer console`,
    );
  if (res.status === 403 && /duplicate content/i.test(text))
    return new XDuplicateError(`X refused the post as a duplicate of a recent post: ${text}`);
  return apiError(X.api, { status: res.status, headers: res.headers, text }, { afterCreate, now });
}
