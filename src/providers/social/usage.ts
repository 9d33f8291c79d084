/**
 * Rate limits stated on SUCCESSFUL answers (docs/analytics.md "Failures and rate limits"): a
 * network may answer 200 and say in the same answer that the budget is spent, before it ever answers 429:
 * - X: `x-rate-limit-remaining: 0` with `x-rate-limit-reset` (epoch seconds), per user token and endpoint
 *   (https://docs.x.com/x-api/fundamentals/rate-limits);
 * - Meta Graph API: `X-App-Usage` (the app, `{call_count, total_cputime, total_time}` in percent of the
 *   app's budget) and `X-Business-Use-Case-Usage` (per business object, i.e. the Page or Instagram account
 *   of the token: `{id: [{type, call_count, total_cputime, total_time, estimated_time_to_regain_access}]}`,
 *   the time in minutes); a value at 100 means throttled
 *   (https://developers.facebook.com/docs/graph-api/overview/rate-limiting).
 * A network's table (./network-table.ts `ApiTable.usage`) reads these headers into a `UsageStop`;
 * ./json-call.ts `apiRequest` reports it, after a 2xx answer, to the caller that asked to observe usage
 * (`observeUsage`, the metrics sync's pacer). Calls made outside `observeUsage` report nothing.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A budget a successful answer said is spent: whose, and for how long. */
export interface UsageStop {
  /** Whose budget: this token's (an X user, a Meta Page / Instagram account) or the whole app's. */
  scope: "token" | "app";
  /** Seconds from the answer until the budget is back (never negative). */
  seconds: number;
  /** The header and values that said so, safe to show ("x-rate-limit-remaining 0"). */
  source: string;
  /** Only the calls that start a post are limited (NetworkRateLimitError `startsOnly`). */
  startsOnly?: boolean | undefined;
}

interface Sink {
  /** Told each stop; true when no further call may be made in this context. */
  onStop: (stop: UsageStop) => boolean;
  /** The stop that ended calls in this context, once one did. */
  blocked?: UsageStop | undefined;
}

const sinks = new AsyncLocalStorage<Sink>();

/**
 * Runs `fn`; every `UsageStop` an API answer inside it states is handed to `onStop` (in the order of the
 * answers). When `onStop` answers true, every further API call inside `fn` (a read made of several calls)
 * is refused before it is sent (./json-call.ts throws NetworkRateLimitError with the stop's time and
 * scope). @returns what `fn` returns.
 */
export function observeUsage<T>(onStop: (stop: UsageStop) => boolean, fn: () => Promise<T>): Promise<T> {
  return sinks.run({ onStop }, fn);
}

/** Hands `stop` to the caller observing usage (`observeUsage`), if any. */
export function reportUsage(stop: UsageStop | undefined): void {
  const sink = sinks.getStore();
  if (stop && sink?.onStop(stop)) sink.blocked ??= stop;
}

/** The stop that ended calls in the current `observeUsage` context, if one did. */
export function usageBlocked(): UsageStop | undefined {
  return sinks.getStore()?.blocked;
}

/** A Meta usage percentage at or above this stops further calls (Meta throttles at 100). */
export const META_USAGE_STOP_PERCENT = 95;

/**
 * Meta's app-level usage is over a rolling hour (rate-limiting page, "Platform Rate Limits"): an app at its
 * limit without a stated time is waited out for this long, seconds.
 */
export const META_APP_WINDOW_SECONDS = 3600;

/**
 * The budget Meta's usage headers of a 2xx answer say is spent (see the module comment): `X-App-Usage`
 * with any of `call_count`, `total_cputime`, `total_time` at or above `META_USAGE_STOP_PERCENT` -> the app,
 * for `META_APP_WINDOW_SECONDS`; `X-Business-Use-Case-Usage` with such a value for the token's object ->
 * the token, for `estimated_time_to_regain_access` minutes (at least one minute). The longer of the two
 * when both say so, the app's first. Unreadable headers: undefined.
 */
export function metaUsageStop(headers: Headers): UsageStop | undefined {
  const high = (u: Record<string, unknown>) =>
    ["call_count", "total_cputime", "total_time"].filter(
      (k) => typeof u[k] === "number" && (u[k] as number) >= META_USAGE_STOP_PERCENT,
    );
  const app = parse(headers.get("x-app-usage"));
  if (app && !Array.isArray(app)) {
    const over = high(app);
    if (over.length > 0)
      return {
        scope: "app",
        seconds: META_APP_WINDOW_SECONDS,
        source: `X-App-Usage ${over.map((k) => `${k} ${app[k]}%`).join(", ")}`,
      };
  }
  const buc = parse(headers.get("x-business-use-case-usage"));
  if (buc && !Array.isArray(buc)) {
    let stop: UsageStop | undefined;
    for (const entries of Object.values(buc)) {
      for (const u of Array.isArray(entries) ? (entries as Array<Record<string, unknown>>) : []) {
        const over = high(u);
        if (over.length === 0) continue;
        const minutes =
          typeof u.estimated_time_to_regain_access === "number" ? u.estimated_time_to_regain_access : 0;
        const seconds = Math.max(60, minutes * 60);
        if (!stop || seconds > stop.seconds)
          stop = {
            scope: "token",
            seconds,
            source: `X-Business-Use-Case-Usage ${over.map((k) => `${k} ${u[k]}%`).join(", ")}`,
          };
      }
    }
    return stop;
  }
  return undefined;
}

/**
 * The budget X's headers of a 2xx answer say is spent (https://docs.x.com/x-api/fundamentals/rate-limits):
 * `x-app-limit-24hour-remaining: 0` -> the app's 24-hour cap (every user of the app) until
 * `x-app-limit-24hour-reset`; else `x-rate-limit-remaining: 0` -> this token (X's limits are per user and
 * endpoint) until `x-rate-limit-reset` (epoch seconds; at least one second; 900 s when absent). Neither at
 * 0 or absent: undefined.
 */
export function xUsageStop(headers: Headers, now: Date): UsageStop | undefined {
  const until = (prefix: string, fallback: number) => {
    const reset = Number(headers.get(`${prefix}-reset`));
    const seconds = Number.isFinite(reset) && reset > 0 ? Math.ceil(reset - now.getTime() / 1000) : fallback;
    return Math.max(1, seconds);
  };
  if (headers.get("x-app-limit-24hour-remaining")?.trim() === "0")
    return {
      scope: "app",
      seconds: until("x-app-limit-24hour", 86_400),
      source: "x-app-limit-24hour-remaining 0",
    };
  const remaining = headers.get("x-rate-limit-remaining");
  if (remaining === null || remaining.trim() !== "0") return undefined;
  return { scope: "token", seconds: until("x-rate-limit", 900), source: "x-rate-limit-remaining 0" };
}

function parse(v: string | null): Record<string, unknown> | unknown[] | undefined {
  if (!v) return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
