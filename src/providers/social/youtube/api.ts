/**
 * YouTube Data API v3 calls shared by the YouTube OAuth, publisher and metrics: one request function over a
 * `SocialHttp` (../http.ts) and the mapping of Google API errors to the adapter errors of ../network.ts.
 *
 * Error envelope (https://developers.google.com/youtube/v3/docs/errors,
 * https://cloud.google.com/apis/design/errors): `{error:{code, message, status, errors:[{message, domain,
 * reason}]}}`. Mapping by `reason` first, then HTTP status:
 * - `quotaExceeded` (403, domain youtube.quota), `dailyLimitExceeded`, `uploadLimitExceeded` (400, the
 *   channel's 24-hour upload limit) -> `quotaError`: on the create (`videos.insert`, `quota: "fail"`) a
 *   `NetworkRejectedError` naming when to publish again (nothing was created; the delivery fails); on reads
 *   (`quota: "wait"`) a `NetworkRateLimitError` until the next quota day (midnight Pacific, ./quota-day.ts);
 * - HTTP 401, `authError`, `insufficientPermissions`, `youtubeSignupRequired`, `authenticatedUserAccount*`,
 *   `accountDelegationForbidden` -> NetworkAuthError;
 * - HTTP 429, `rateLimitExceeded`, `userRateLimitExceeded` -> NetworkRateLimitError (Retry-After, else 60 s);
 * - HTTP 5xx, `backendError`, timeouts, lost connections -> NetworkTransientError (`afterCreate` as told);
 * - anything else (`invalidTitle`, `invalidDescription`, `forbidden`, ...) -> NetworkRejectedError.
 * Google's messages may hold HTML (`<a href=...>quota</a>`): tags are removed, token-like strings redacted.
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
import { formatUtc, nextQuotaReset, secondsUntilQuotaReset } from "./quota-day.ts";

/** Base URL of the Data API resources (channels, videos, playlistItems). */
export const YT_DATA_API = "https://www.googleapis.com/youtube/v3";
/** The media upload endpoint of `videos.insert`. */
export const YT_UPLOAD_URL = "https://www.googleapis.com/upload/youtube/v3/videos";

/** Wait when a rate limit answer carries no Retry-After, seconds. */
const DEFAULT_RATE_LIMIT_SECONDS = 60;
/** YouTube's channel upload limit counts the last 24 hours, seconds. */
const UPLOAD_LIMIT_WINDOW_SECONDS = 24 * 3600;

const AUTH_REASONS = new Set([
  "authError",
  "insufficientPermissions",
  "youtubeSignupRequired",
  "authenticatedUserAccountClosed",
  "authenticatedUserAccountSuspended",
  "accountDelegationForbidden",
]);
const RATE_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded"]);
/** Reasons that mean "no more today". */
export const QUOTA_REASONS = new Set(["quotaExceeded", "dailyLimitExceeded", "uploadLimitExceeded"]);

/** What the adapter's YouTube calls need: outbound HTTP and the service clock. */
export interface YouTubeDeps {
  http: SocialHttp;
  now(): Date;
}

/** Google's error object (`error` of the envelope). */
export interface GoogleApiError {
  code?: number;
  message?: string;
  status?: string;
  errors?: Array<{ message?: string; domain?: string; reason?: string }>;
}

/** What a quota answer means for this call: `fail` the delivery (the create) or `wait` for the quota day. */
export type QuotaMode = "fail" | "wait";

export interface YouTubeCall {
  method: "GET" | "POST" | "PUT";
  /** Absolute `https://` URL (a session URI may carry its own query). */
  url: string;
  query?: Record<string, string>;
  /** Sent as `application/json; charset=UTF-8`. */
  json?: unknown;
  /** Raw body (upload chunks). */
  bytes?: Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer` (never in the URL). */
  accessToken: string;
  /** A lost answer may mean the thing was created (the final upload chunk). */
  create?: boolean;
  /** Default `wait`. */
  quota?: QuotaMode;
  /** Statuses returned to the caller instead of mapped to errors (default: 2xx only). */
  accept?: readonly number[];
  timeoutSeconds?: number;
  signal?: AbortSignal | undefined;
}

export interface YouTubeAnswer<T> {
  status: number;
  headers: Headers;
  /** The parsed JSON body, undefined when empty or not JSON. */
  body: T | undefined;
}

/**
 * Sends one call through `deps.http`.
 * @returns status, headers and parsed body for a 2xx answer (or a status listed in `accept`).
 * @throws NetworkAuthError | NetworkRateLimitError | NetworkRejectedError | NetworkTransientError
 */
export async function youtubeRequest<T = Record<string, unknown>>(
  deps: YouTubeDeps,
  call: YouTubeCall,
): Promise<YouTubeAnswer<T>> {
  const { res, body: parsed } = await sendJson(deps.http, {
    network: "YouTube",
    method: call.method,
    url: call.url,
    query: call.query,
    accessToken: call.accessToken,
    headers: call.headers,
    json: call.json,
    jsonType: "application/json; charset=UTF-8",
    body: call.bytes,
    create: call.create,
    signal: call.signal,
    timeoutSeconds: call.timeoutSeconds,
    // 308 is the upload protocol's "Resume Incomplete", not a redirect to follow.
    redirect: "manual",
  });
  if ((res.status >= 200 && res.status < 300) || call.accept?.includes(res.status))
    return { status: res.status, headers: res.headers, body: parsed as T | undefined };
  const error = (parsed as { error?: GoogleApiError } | undefined)?.error;
  throw youtubeError(res.status, res.headers, typeof error === "object" ? error : undefined, {
    afterCreate: call.create === true,
    quota: call.quota ?? "wait",
    now: deps.now(),
  });
}

/** Maps a failed Google API answer to the adapter error (see the module comment). */
export function youtubeError(
  status: number,
  headers: Headers,
  error: GoogleApiError | undefined,
  context: { afterCreate: boolean; quota: QuotaMode; now: Date },
): NetworkError {
  const reason = error?.errors?.find((e) => e.reason)?.reason;
  const label = reason ?? `HTTP ${status}`;
  const text = plainMessage(error?.message ?? error?.errors?.[0]?.message ?? `HTTP ${status}`);
  if (reason && QUOTA_REASONS.has(reason)) return quotaError(reason, context.quota, context.now);
  if (status === 401 || (reason && AUTH_REASONS.has(reason)))
    return new NetworkAuthError(`YouTube refused the account's credentials (${label}): ${text}`);
  if (status === 429 || (reason && RATE_REASONS.has(reason)))
    return new NetworkRateLimitError(
      `rate limited by YouTube (${label}): ${text}`,
      retryAfterSeconds(headers, context.now) ?? DEFAULT_RATE_LIMIT_SECONDS,
    );
  if (status >= 500 || reason === "backendError")
    return new NetworkTransientError(`YouTube failed temporarily (${label}): ${text}`, context.afterCreate);
  return new NetworkRejectedError(`YouTube refused the request (${label}): ${text}`);
}

/**
 * The error for a used-up quota `reason` at `now`:
 * - `uploadLimitExceeded` (the channel's uploads over the last 24 hours): publish again in 24 hours;
 * - `quotaExceeded` / `dailyLimitExceeded` (the API project's daily quota): publish again after the next
 *   midnight in America/Los_Angeles.
 * `fail` -> NetworkRejectedError (the delivery fails with that sentence; nothing retries it);
 * `wait` -> NetworkRateLimitError with `retryAfterSeconds` until then (the same step runs after the wait).
 */
export function quotaError(reason: string, mode: QuotaMode, now: Date): NetworkError {
  if (reason === "uploadLimitExceeded") {
    const at = new Date(now.getTime() + UPLOAD_LIMIT_WINDOW_SECONDS * 1000);
    const why = `the YouTube channel reached its daily upload limit (uploadLimitExceeded); YouTube counts the uploads of the last 24 hours`;
    return mode === "fail"
      ? new NetworkRejectedError(`${why}: publish again after ${formatUtc(at)}`)
      : new NetworkRateLimitError(`${why}: waiting until ${formatUtc(at)}`, UPLOAD_LIMIT_WINDOW_SECONDS);
  }
  const at = nextQuotaReset(now);
  const why = `the app's daily YouTube API quota is used up (${reason}); it resets at midnight Pacific time (${formatUtc(at)})`;
  return mode === "fail"
    ? new NetworkRejectedError(`${why}: publish again after that`)
    : new NetworkRateLimitError(`${why}: waiting until then`, secondsUntilQuotaReset(now));
}

/** Google's message without HTML tags, trimmed, token-like strings removed. */
export function plainMessage(message: string): string {
  return safeMessage(message.replace(/<[^>]*>/g, "").trim());
}

/** A Data API count (uint64 written as a JSON string) as a number, or null when absent or not a count. */
export function count(value: unknown): number | null {
  if (value === undefined || value === null || value === "") return null;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : null;
}
