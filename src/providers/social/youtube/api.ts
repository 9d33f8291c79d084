/**
 * YouTube Data API v3 calls shared by the YouTube OAuth, publisher and metrics: one request function over a
 * `SocialHttp` (../http.ts) and the mapping of Google API errors to the adapter errors of ../network.ts.
 *
 * Error envelope `{error:{code, message, status, errors:[{message, domain, reason}]}}`, mapped by YouTube's
 * table (./table.ts) through ../api-errors.ts, after the quota reasons: `quotaExceeded` (403, domain
 * youtube.quota), `dailyLimitExceeded`, `uploadLimitExceeded` (400, the channel's 24-hour upload limit) ->
 * `quotaError`: on the create (`videos.insert`, `quota: "fail"`) a `NetworkRejectedError` naming when to
 * publish again (nothing was created; the delivery fails); on reads (`quota: "wait"`) a
 * `NetworkRateLimitError` until the next quota day (midnight Pacific, ./quota-day.ts).
 * Google's messages may hold HTML (`<a href=...>quota</a>`): tags are removed, token-like strings redacted.
 */
import { apiError } from "../api-errors.ts";
import type { SocialHttp } from "../http.ts";
import { type ApiCall, apiRequest } from "../json-call.ts";
import { type NetworkError, NetworkRateLimitError, NetworkRejectedError } from "../network.ts";
import { safeMessage } from "../network-text.ts";
import { formatUtc, nextQuotaReset, secondsUntilQuotaReset } from "./quota-day.ts";
import { YOUTUBE } from "./table.ts";

export { YT_DATA_API, YT_UPLOAD_URL } from "./table.ts";

/** YouTube's channel upload limit counts the last 24 hours, seconds. */
const UPLOAD_LIMIT_WINDOW_SECONDS = 24 * 3600;

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

/**
 * One call: `path` under the Data API (`/channels`), or an absolute URL (the upload endpoint, a session URI
 * with its own query); `body` carries upload chunks.
 */
export interface YouTubeCall extends ApiCall {
  accessToken: string;
  /** Default `wait`. */
  quota?: QuotaMode;
  /** Statuses returned to the caller instead of mapped to errors (default: 2xx only). */
  accept?: readonly number[];
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
  // 308 is the upload protocol's "Resume Incomplete", not a redirect to follow.
  const { res, body: parsed } = await apiRequest(YOUTUBE.api, deps.http, { ...call, redirect: "manual" });
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
  const code = error?.errors?.find((e) => e.reason)?.reason;
  if (code && QUOTA_REASONS.has(code)) return quotaError(code, context.quota, context.now);
  const text = plainMessage(error?.message ?? error?.errors?.[0]?.message ?? `HTTP ${status}`);
  return apiError(YOUTUBE.api, { status, headers, code, text }, context);
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
    : new NetworkRateLimitError(`${why}: waiting until then`, secondsUntilQuotaReset(now), "app");
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
