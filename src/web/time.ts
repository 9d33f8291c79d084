/**
 * Times on the browser pages in the owner's time zone (`users.time_zone`, src/domain/account/time-zone.ts):
 * "Tue, 1 Dec 2026, 09:00 CET" in a `<time>` element whose `datetime` is the instant in UTC (RFC 3339) and
 * whose title repeats it in UTC, and the days of a week for the week view (Temporal, the runtime's IANA data).
 */
import { Temporal } from "temporal-polyfill";
import { html, type RawHtml } from "./html.ts";

const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string, withTime: boolean): Intl.DateTimeFormat {
  const key = `${zone}|${withTime}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      weekday: "short",
      day: "numeric",
      month: "short",
      ...(withTime
        ? { year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" }
        : { year: undefined }),
    });
    formats.set(key, f);
  }
  return f;
}

/** `at` in `zone` as text: "Tue, 1 Dec 2026, 09:00 CET". */
export function zonedText(at: Date, zone: string): string {
  return format(zone, true).format(at);
}

/** `at` in `zone` as a `<time>` element (see the module comment). */
export function zonedTime(at: Date, zone: string): RawHtml {
  const utc = `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return html`<time datetime="${at.toISOString()}" title="${utc}">${zonedText(at, zone)}</time>`;
}

/** The hour and minute of `at` in `zone`: "09:00". */
export function zonedClock(at: Date, zone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(at.getTime())
    .toZonedDateTimeISO(zone)
    .toPlainTime()
    .toString({ smallestUnit: "minute" });
}

/** One day of a week in the owner's zone: its date (YYYY-MM-DD), label ("Mon, 30 Nov") and bounds. */
export interface ZonedDay {
  date: string;
  label: string;
  start: Date;
  end: Date;
}

/**
 * The Monday-to-Sunday week in `zone` that contains `day` (YYYY-MM-DD) or, when `day` is absent or not a
 * date, the one containing `now`. Day bounds follow the zone (a daylight-saving day is 23 or 25 hours).
 */
export function zonedWeek(zone: string, now: Date, day?: unknown): { days: ZonedDay[]; today: string } {
  const today = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(zone).toPlainDate();
  let pick = today;
  if (typeof day === "string" && /^\d{4}-\d{2}-\d{2}$/.test(day)) {
    try {
      pick = Temporal.PlainDate.from(day, { overflow: "reject" });
    } catch {
      pick = today;
    }
  }
  const monday = pick.subtract({ days: pick.dayOfWeek - 1 });
  const days = Array.from({ length: 7 }, (_, i) => {
    const date = monday.add({ days: i });
    const start = new Date(date.toZonedDateTime(zone).epochMilliseconds);
    const end = new Date(date.add({ days: 1 }).toZonedDateTime(zone).epochMilliseconds);
    return { date: date.toString(), label: format(zone, false).format(start), start, end };
  });
  return { days, today: today.toString() };
}
