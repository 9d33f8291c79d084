/**
 * The YouTube Data API quota day: daily quotas (the project's 10,000 units, the `videos.insert` bucket)
 * reset at midnight Pacific time (https://developers.google.com/youtube/v3/getting-started#quota,
 * https://developers.google.com/youtube/v3/determine_quota_cost). Zone rules (PST/PDT) come from
 * `Temporal` (temporal-polyfill, the runtime's IANA data).
 */
import { Temporal } from "temporal-polyfill";

/** The zone whose midnight starts a new quota day. */
export const QUOTA_TIME_ZONE = "America/Los_Angeles";

/** The next midnight in America/Los_Angeles strictly after `now` (a DST day is 23 or 25 hours long). */
export function nextQuotaReset(now: Date): Date {
  const today = Temporal.Instant.fromEpochMilliseconds(now.getTime())
    .toZonedDateTimeISO(QUOTA_TIME_ZONE)
    .toPlainDate();
  return new Date(today.add({ days: 1 }).toZonedDateTime(QUOTA_TIME_ZONE).epochMilliseconds);
}

/** Whole seconds from `now` until the next quota day starts (at least 1). */
export function secondsUntilQuotaReset(now: Date): number {
  return Math.max(1, Math.ceil((nextQuotaReset(now).getTime() - now.getTime()) / 1000));
}

/** `2026-11-25 08:00 UTC`: the reset time as shown in a delivery's reason. */
export function formatUtc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
