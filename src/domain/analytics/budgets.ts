/**
 * The metrics sync's budgets shared by the workers (docs/analytics.md "Failures and rate
 * limits"):
 * - app stops (`analytics_rate_stops`): a network that says the APP's budget ran out (a
 *   `NetworkRateLimitError` with scope `app`) stops every live account of that network until the time it
 *   gave (also when a successful answer's usage headers say the app's budget is spent); `appStopRecord`
 *   reads it before every call of a job, `recordAppStop` writes it the moment a job's pacer stops;
 * - quota units (`analytics_quota_usage`): YouTube's Data API quota per quota day (midnight Pacific,
 *   https://developers.google.com/youtube/v3/determine_quota_cost): `chargeYouTubeUnit` spends one unit
 *   per call (`videos.list`, `channels.list`) and, past `ANALYTICS_YOUTUBE_DAILY_QUOTA`, stops the app until
 *   the next quota day, before Google answers `quotaExceeded`.
 */
import type { AppContext } from "../../context.ts";
import { nextQuotaReset, QUOTA_TIME_ZONE } from "../../providers/social/youtube/quota-day.ts";
import type { Network } from "../../providers/social/types.ts";
import type { PacerStop } from "./pacing.ts";

/** The key of `network`'s app budget. */
export const appKey = (network: Network): string => `${network}:app`;

/** The reason the app of `network` is stopped now, or undefined. */
export async function appStop(app: AppContext, network: Network): Promise<string | undefined> {
  return (await appStopRecord(app, network))?.reason;
}

/**
 * The app stop of `network` in force now (reason, scope `app`, until), or undefined: read before every call
 * of a live account's job, so a stop another job recorded (a 429 or a usage header at its limit, on any
 * worker) halts the jobs already running too.
 */
export async function appStopRecord(app: AppContext, network: Network): Promise<PacerStop | undefined> {
  const row = await app
    .db("analytics_rate_stops")
    .where({ scope_key: appKey(network) })
    .where("until", ">", app.clock.now())
    .first("reason", "until");
  return row ? { reason: row.reason, scope: "app", until: new Date(row.until) } : undefined;
}

/** Stops the app of `network` until `stop.until` with `stop.reason` (later stops replace earlier ones). */
export async function recordAppStop(app: AppContext, network: Network, stop: PacerStop): Promise<void> {
  await app
    .db("analytics_rate_stops")
    .insert({
      scope_key: appKey(network),
      until: stop.until,
      reason: stop.reason,
      updated_at: app.clock.now(),
    })
    .onConflict("scope_key")
    .merge();
}

/**
 * Spends one YouTube quota unit of the app for today's quota day.
 * @returns undefined while within `ANALYTICS_YOUTUBE_DAILY_QUOTA`, else the app stop until the next
 *   midnight Pacific (the call is then not made).
 */
export async function chargeYouTubeUnit(app: AppContext): Promise<PacerStop | undefined> {
  const now = app.clock.now();
  const day = new Intl.DateTimeFormat("en-CA", { timeZone: QUOTA_TIME_ZONE }).format(now);
  const [row] = await app
    .db("analytics_quota_usage")
    .insert({ scope_key: appKey("youtube"), day, units: 1 })
    .onConflict(["scope_key", "day"])
    .merge({ units: app.db.raw("analytics_quota_usage.units + 1") })
    .returning("units");
  const quota = app.config.analytics.youtubeDailyQuotaUnits;
  if (Number(row.units) <= quota) return undefined;
  return {
    reason: `the app's daily YouTube quota for the sync (${quota} units, ANALYTICS_YOUTUBE_DAILY_QUOTA) is used up; the next sync reads it again`,
    scope: "app",
    until: nextQuotaReset(now),
  };
}
