/**
 * The error mapping every network adapter shares: a failed API answer, as the network's `api.ts` read it
 * (HTTP status, the network's code, its message made safe), becomes one of the adapter errors of
 * ./network.ts by the network's error table (./network-table.ts `ErrorTable`):
 * - `auth` (HTTP 401 or an auth code) -> NetworkAuthError: the account must reconnect;
 * - `rate_limit` (HTTP 429 or a rate code) -> NetworkRateLimitError after the table's wait (default
 *   `Retry-After`, else 60 s);
 * - `transient` (HTTP 5xx, a transient code, or flagged so) -> NetworkTransientError (`afterCreate` for a
 *   create call whose answer was an error of the network's side);
 * - anything else -> NetworkRejectedError (or the network's subclass carrying its code).
 * The messages name the network and its code (else the HTTP status) and never carry a token: the text is the
 * network's message through ./network-text.ts `safeMessage`.
 */
import { retryAfterSeconds } from "./http.ts";
import type { ApiTable, ErrorCode, ErrorTable } from "./network-table.ts";
import {
  NetworkAuthError,
  type NetworkError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
} from "./network.ts";

/** Wait after a rate limit answer that says nothing about when to come back, seconds. */
export const DEFAULT_RATE_LIMIT_SECONDS = 60;

/** A failed answer as a network's `api.ts` read it. */
export interface ApiFailure {
  /** HTTP status. */
  status: number;
  headers: Headers;
  /** The network's error code or reason, when the answer names one. */
  code?: ErrorCode | undefined;
  /** The network's message, already made safe (no token, trimmed). */
  text: string;
  /** The network marked the error transient (Graph `is_transient`). */
  transient?: boolean | undefined;
}

/** What a failure means (see the module comment). */
export type FailureKind = "auth" | "rate_limit" | "transient" | "rejected";

/** Classifies `failure` by `errors` (codes first in the order auth, rate limit, transient; then the status). */
export function failureKind(errors: ErrorTable, failure: ApiFailure): FailureKind {
  const listed = (codes: readonly ErrorCode[]) => failure.code !== undefined && codes.includes(failure.code);
  if (failure.status === 401 || listed(errors.auth)) return "auth";
  if (failure.status === 429 || listed(errors.rateLimit)) return "rate_limit";
  if (
    failure.status >= 500 ||
    failure.transient === true ||
    listed(errors.transient) ||
    (errors.uncodedIsTransient === true && failure.code === undefined)
  )
    return "transient";
  return "rejected";
}

/** Seconds to wait after a rate limit answer with `headers` at `now`, by the table (see `ErrorTable`). */
export function rateLimitWait(errors: ErrorTable, headers: Headers, now: Date): number {
  return errors.rateLimitWait
    ? errors.rateLimitWait(headers, now)
    : (retryAfterSeconds(headers, now) ?? DEFAULT_RATE_LIMIT_SECONDS);
}

/** How `apiError` builds its errors for one call. */
export interface ErrorContext {
  /** The call creates something (a transient failure then leaves the outcome unknown). */
  afterCreate: boolean;
  /** The service clock (reset headers count from it). */
  now: Date;
  /** The network's refusal subclass (carrying its code), given the message. */
  rejected?: ((reason: string) => NetworkRejectedError) | undefined;
  /** The network's credentials subclass (e.g. a missing permission), given the message. */
  auth?: ((reason: string) => NetworkAuthError) | undefined;
}

/** The adapter error for `failure` of `api` (see the module comment). */
export function apiError(api: ApiTable, failure: ApiFailure, context: ErrorContext): NetworkError {
  const label = failure.code !== undefined ? String(failure.code) : `HTTP ${failure.status}`;
  const { name } = api;
  switch (failureKind(api.errors, failure)) {
    case "auth": {
      const reason = `${name} refused the account's credentials (${label}): ${failure.text}`;
      return context.auth?.(reason) ?? new NetworkAuthError(reason);
    }
    case "rate_limit":
      return new NetworkRateLimitError(
        `rate limited by ${name} (${label}): ${failure.text}`,
        rateLimitWait(api.errors, failure.headers, context.now),
        (failure.code !== undefined && api.errors.appRateLimit?.includes(failure.code)) ||
          appUsageFull(failure.headers)
          ? "app"
          : "token",
      );
    case "transient":
      return new NetworkTransientError(
        `${name} failed temporarily (${label}): ${failure.text}`,
        context.afterCreate,
      );
    default: {
      const reason = `${name} refused the request (${label}): ${failure.text}`;
      return context.rejected?.(reason) ?? new NetworkRejectedError(reason);
    }
  }
}

/**
 * Whether the headers say the APP's budget is used up: Meta's `X-App-Usage`
 * (`{"call_count":N,"total_cputime":N,"total_time":N}`, percent of the app's hourly budget; any value at 100
 * or more; https://developers.facebook.com/docs/graph-api/overview/rate-limiting), or X's app cap
 * `x-app-limit-24hour-remaining: 0` (https://docs.x.com/x-api/fundamentals/rate-limits).
 */
export function appUsageFull(headers: Headers): boolean {
  if (headers.get("x-app-limit-24hour-remaining")?.trim() === "0") return true;
  const v = headers.get("x-app-usage");
  if (!v) return false;
  try {
    return Object.values(JSON.parse(v) as Record<string, unknown>).some(
      (n) => typeof n === "number" && n >= 100,
    );
  } catch {
    return false;
  }
}
