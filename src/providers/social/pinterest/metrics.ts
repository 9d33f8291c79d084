/**
 * Pinterest counters for the analytics sync (../network.ts `NetworkMetrics`; networks.md 2.6):
 *
 * - account: `GET /v5/user_account` (https://developers.pinterest.com/docs/api/v5/user_account-get):
 *   `follower_count` -> followers. `monthly_views` is a rolling 30-day count, not a lifetime value, so it is
 *   not reported as views (null); likes, comments and shares have no account-level counter (null).
 * - a Pin: `GET /v5/pins/{pin_id}/analytics?start_date&end_date&metric_types=...`
 *   (https://developers.pinterest.com/docs/api/v5/pins-analytics) answers
 *   `{all: {summary_metrics, daily_metrics: [{date, data_status, metrics}], lifetime_metrics}}`. Pinterest
 *   keeps Pin analytics 90 days back, so the window runs from the Pin's publish date (or 90 days ago, if
 *   later) to today (UTC): for a Pin younger than 90 days the totals are its lifetime totals, for an older
 *   one the last 90 days. IMPRESSION -> views, SAVE -> saves (the summary, else the sum of the daily
 *   values); TOTAL_REACTIONS -> likes and TOTAL_COMMENTS -> comments from `lifetime_metrics` when Pinterest
 *   sends them; shares and reach are not given (null). A metric Pinterest does not return is null, never 0.
 */
import type { Account } from "./contract.ts";
import type { SocialHttp } from "../http.ts";
import type { AdapterAccount, MetricsPost, NetworkMetrics } from "../network.ts";
import type { AccountCounters, PostCounters } from "../types.ts";
import { pinterestRequest } from "./api.ts";

/** How far back Pin analytics go, days. */
export const ANALYTICS_DAYS = 90;
/** Metric types asked for every Pin (VIDEO_MRC_VIEW is asked for video Pins only, where it exists). */
const PIN_METRICS = [
  "IMPRESSION",
  "SAVE",
  "PIN_CLICK",
  "OUTBOUND_CLICK",
  "TOTAL_COMMENTS",
  "TOTAL_REACTIONS",
];

interface PinAnalytics {
  summary_metrics?: Record<string, number>;
  daily_metrics?: Array<{ date?: string; data_status?: string; metrics?: Record<string, number> }>;
  lifetime_metrics?: Record<string, number>;
}

/** `YYYY-MM-DD` of `d` in UTC. */
function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * The analytics window of a Pin published at `publishedAt`, as of `now`: from the later of the publish date
 * and `now` - 90 days, to `now` (both UTC dates).
 */
export function analyticsWindow(publishedAt: Date, now: Date): { start: string; end: string } {
  const earliest = new Date(now.getTime() - ANALYTICS_DAYS * 86_400_000);
  const start = publishedAt > earliest ? (publishedAt > now ? now : publishedAt) : earliest;
  return { start: day(start), end: day(now) };
}

/** The value of `metric` over the window: the summary, else the sum of the daily values; null if absent. */
function total(a: PinAnalytics, metric: string): number | null {
  const summary = a.summary_metrics?.[metric];
  if (typeof summary === "number") return summary;
  const daily = (a.daily_metrics ?? []).map((d) => d.metrics?.[metric]).filter((v) => typeof v === "number");
  return daily.length > 0 ? daily.reduce((s, v) => s + (v as number), 0) : null;
}

function lifetime(a: PinAnalytics, metric: string): number | null {
  const v = a.lifetime_metrics?.[metric];
  return typeof v === "number" ? v : null;
}

/** Pinterest's counters of accounts and Pins; requests go through `http`, `now` is the service clock. */
export function pinterestMetrics(http: SocialHttp, now: () => Date): NetworkMetrics {
  return {
    async account(account: AdapterAccount, signal?: AbortSignal): Promise<AccountCounters> {
      const me = await pinterestRequest<Partial<Account>>(http, {
        method: "GET",
        path: "/user_account",
        accessToken: account.tokens.accessToken,
        signal,
      });
      return {
        followers: typeof me.follower_count === "number" ? me.follower_count : null,
        views: null,
        likes: null,
        comments: null,
        shares: null,
      };
    },

    async post(account: AdapterAccount, post: MetricsPost, signal?: AbortSignal): Promise<PostCounters> {
      const { start, end } = analyticsWindow(post.publishedAt, now());
      const metrics = post.type === "video" ? [...PIN_METRICS, "VIDEO_MRC_VIEW"] : PIN_METRICS;
      const r = await pinterestRequest<Record<string, PinAnalytics>>(http, {
        method: "GET",
        path: `/pins/${encodeURIComponent(post.networkPostId)}/analytics`,
        query: { start_date: start, end_date: end, metric_types: metrics.join(",") },
        accessToken: account.tokens.accessToken,
        signal,
      });
      const a = r.all ?? Object.values(r)[0] ?? {};
      return {
        views: total(a, "IMPRESSION"),
        reach: null,
        likes: lifetime(a, "TOTAL_REACTIONS"),
        comments: lifetime(a, "TOTAL_COMMENTS"),
        shares: null,
        saves: total(a, "SAVE"),
      };
    },
  };
}
