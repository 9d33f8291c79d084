/**
 * The networks' limits on publishing calls that their fakes do not meter themselves (test only), for X,
 * TikTok, LinkedIn and Pinterest (Meta's Graph hosts meter every call in ./graph.ts `GraphUsage`, Instagram
 * counts its content publishing limit, YouTube its quota and per-channel uploads: ./youtube.ts). Each rule
 * counts the matching requests of one user token (the account) and of the whole app in a window, answers
 * past a limit with the network's own refusal and headers, and adds the network's usage headers to the
 * answers where it sends them:
 * - X `POST /2/tweets`: per user 100 per 15 minutes (`x-rate-limit-limit`, `-remaining`, `-reset` epoch
 *   seconds), per app 10,000 per 24 hours (`x-app-limit-24hour-limit`, `-remaining`, `-reset`); past either,
 *   HTTP 429 problem "Too Many Requests" (https://docs.x.com/x-api/fundamentals/rate-limits: the Manage Posts
 *   rows and "Checking your limits");
 * - TikTok `POST /v2/post/publish/video/init/`: each user access token 6 requests per minute
 *   (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post "Note: Each user
 *   access_token is limited to 6 requests per minute"); past it HTTP 429 with error code
 *   `rate_limit_exceeded` on a one-minute sliding window, no header saying when
 *   (https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit);
 * - LinkedIn `POST /rest/posts`: a daily limit per member and per application, reset at midnight UTC, HTTP
 *   429 without a header (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits;
 *   LinkedIn publishes no numbers: each app reads its own in the Developer Portal, so they are parameters);
 * - Pinterest (every call of a user token): Standard access 100 requests per second per user per app
 *   (https://developers.pinterest.com/docs/reference/rate-limits/), HTTP 429 `{code: 8}` with
 *   `x-ratelimit-*` as ./rate-limits.ts answers it.
 */
import { randomBytes } from "node:crypto";
import { LI_API_HOST } from "./linkedin.ts";
import { PIN_API_HOST } from "./pinterest.ts";
import { networkRateLimit } from "./rate-limits.ts";
import type { FakeNetworkServer, FakeRequest, FakeResponse } from "./server.ts";
import { TT_API_HOST } from "./tiktok.ts";
import { X_API_HOST } from "./x.ts";

/** A window of calls: fixed (starts with its first call, or at midnight UTC) or sliding. */
type WindowKind = "fixed" | "sliding" | "utc_day";

interface Limit {
  count: number;
  windowMs: number;
  kind: WindowKind;
}

/** The limits of one network's rule; undefined = not limited on that side. */
export interface PublishLimits {
  perUser?: Limit | undefined;
  perApp?: Limit | undefined;
}

/** What a rule reports: the calls it let through and refused, per side. */
export interface LimitTally {
  allowed: number;
  refusedUser: number;
  refusedApp: number;
  /** The most calls let through for one token within one window, and the limit. */
  worstUserWindow: number;
  worstAppWindow: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The documented defaults (see the module comment); LinkedIn's are the bench's parameters. */
export const PUBLISH_LIMITS = {
  x: {
    perUser: { count: 100, windowMs: 15 * MINUTE, kind: "fixed" },
    perApp: { count: 10_000, windowMs: DAY, kind: "fixed" },
  },
  tiktok: { perUser: { count: 6, windowMs: MINUTE, kind: "sliding" } },
  pinterest: { perUser: { count: 100, windowMs: 1000, kind: "fixed" } },
} satisfies Record<string, PublishLimits>;

/** Calls of one side (a token, or the app) in its window. */
class Meter {
  private starts = new Map<string, number>();
  private used = new Map<string, number[]>();
  worst = 0;
  private readonly limit: Limit;
  constructor(limit: Limit) {
    this.limit = limit;
  }

  private windowStart(key: string, now: number): number {
    if (this.limit.kind === "utc_day") return Math.floor(now / DAY) * DAY;
    const start = this.starts.get(key);
    if (start === undefined || now >= start + this.limit.windowMs) {
      this.starts.set(key, now);
      this.used.set(key, []);
      return now;
    }
    return start;
  }

  /** Calls of `key` counted in the window at `now`. */
  count(key: string, now: number): number {
    const calls = this.used.get(key) ?? [];
    if (this.limit.kind === "sliding") {
      const kept = calls.filter((t) => t > now - this.limit.windowMs);
      this.used.set(key, kept);
      return kept.length;
    }
    const start = this.windowStart(key, now);
    const kept = calls.filter((t) => t >= start);
    this.used.set(key, kept);
    return kept.length;
  }

  /** Epoch ms when the window of `key` frees a call. */
  resetAt(key: string, now: number): number {
    if (this.limit.kind === "sliding") return (this.used.get(key)?.[0] ?? now) + this.limit.windowMs;
    return this.windowStart(key, now) + this.limit.windowMs;
  }

  full(key: string, now: number): boolean {
    return this.count(key, now) >= this.limit.count;
  }

  take(key: string, now: number): void {
    this.count(key, now);
    const calls = this.used.get(key) ?? [];
    calls.push(now);
    this.used.set(key, calls);
    this.worst = Math.max(this.worst, calls.length);
  }

  get max(): number {
    return this.limit.count;
  }
}

/** One network's rule on its fake: which requests count, and its refusal and headers. */
interface Rule {
  host: string;
  counts(req: FakeRequest): boolean;
  refuse(side: "user" | "app", resetAt: number, now: number, limit: number): FakeResponse;
  headers?(state: { user?: HeaderState; app?: HeaderState }): Record<string, string>;
}

interface HeaderState {
  limit: number;
  remaining: number;
  resetAt: number;
}

const epoch = (ms: number) => String(Math.ceil(ms / 1000));

function xHeaders(state: { user?: HeaderState; app?: HeaderState }): Record<string, string> {
  const h: Record<string, string> = {};
  if (state.user) {
    h["x-rate-limit-limit"] = String(state.user.limit);
    h["x-rate-limit-remaining"] = String(state.user.remaining);
    h["x-rate-limit-reset"] = epoch(state.user.resetAt);
  }
  if (state.app) {
    h["x-app-limit-24hour-limit"] = String(state.app.limit);
    h["x-app-limit-24hour-remaining"] = String(state.app.remaining);
    h["x-app-limit-24hour-reset"] = epoch(state.app.resetAt);
  }
  return h;
}

const RULES: Record<"x" | "tiktok" | "linkedin" | "pinterest", Rule> = {
  x: {
    host: X_API_HOST,
    counts: (req) => req.method === "POST" && req.path === "/2/tweets",
    refuse: () => ({
      status: 429,
      headers: { "content-type": "application/problem+json" },
      raw: JSON.stringify({
        title: "Too Many Requests",
        detail: "Too Many Requests",
        type: "about:blank",
        status: 429,
      }),
    }),
    headers: xHeaders,
  },
  tiktok: {
    host: TT_API_HOST,
    counts: (req) => req.method === "POST" && /^\/v2\/post\/publish\/video\/init\/?$/.test(req.path),
    refuse: () => ({
      status: 429,
      body: {
        error: {
          code: "rate_limit_exceeded",
          message: "The API rate limit was exceeded. Please try again later.",
          log_id: randomBytes(12).toString("hex"),
        },
      },
    }),
  },
  linkedin: {
    host: LI_API_HOST,
    counts: (req) => req.method === "POST" && req.path === "/rest/posts",
    refuse: () => ({
      status: 429,
      body: { status: 429, message: "Resource level throttle limit for calls to this resource is reached." },
    }),
  },
  pinterest: {
    host: PIN_API_HOST,
    counts: () => true,
    refuse: (_side, resetAt, now) =>
      networkRateLimit(PIN_API_HOST, Math.max(1, Math.ceil((resetAt - now) / 1000)), new Date(now)),
  },
};

/**
 * Meters `network`'s publishing calls on `server` with `limits` (see the module comment); the fake of that
 * network must be mounted and must not wrap its host itself.
 * @param now the fakes' clock, ms.
 * @returns the rule's tally, read at any time.
 */
export function meterPublishing(
  server: FakeNetworkServer,
  network: keyof typeof RULES,
  limits: PublishLimits,
  now: () => number = Date.now,
): LimitTally {
  const rule = RULES[network];
  const user = limits.perUser ? new Meter(limits.perUser) : undefined;
  const app = limits.perApp ? new Meter(limits.perApp) : undefined;
  const tally: LimitTally = {
    allowed: 0,
    refusedUser: 0,
    refusedApp: 0,
    worstUserWindow: 0,
    worstAppWindow: 0,
  };
  server.wrap(rule.host, async (req, next) => {
    if (!rule.counts(req)) return next();
    const t = now();
    const token = req.token() ?? "";
    const state = () => ({
      ...(user
        ? {
            user: {
              limit: user.max,
              remaining: Math.max(0, user.max - user.count(token, t)),
              resetAt: user.resetAt(token, t),
            },
          }
        : {}),
      ...(app
        ? {
            app: {
              limit: app.max,
              remaining: Math.max(0, app.max - app.count("app", t)),
              resetAt: app.resetAt("app", t),
            },
          }
        : {}),
    });
    let answer: FakeResponse;
    if (app?.full("app", t)) {
      tally.refusedApp += 1;
      answer = rule.refuse("app", app.resetAt("app", t), t, app.max);
    } else if (user?.full(token, t)) {
      tally.refusedUser += 1;
      answer = rule.refuse("user", user.resetAt(token, t), t, user.max);
    } else {
      user?.take(token, t);
      app?.take("app", t);
      tally.allowed += 1;
      tally.worstUserWindow = user?.worst ?? 0;
      tally.worstAppWindow = app?.worst ?? 0;
      answer = await next();
    }
    const headers = rule.headers?.(state()) ?? {};
    return { ...answer, headers: { ...answer.headers, ...headers } };
  });
  return tally;
}
