/**
 * The owner's time zone (`users.time_zone`, an IANA name such as `Europe/Berlin`): approval pages show a
 * schedule's time in it beside UTC. Chosen on /settings; null until then (times in UTC only).
 */
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";

/**
 * `at` in `timeZone` as a person reads it, e.g. "Tuesday, 1 December 2026 at 09:00" (British English, the
 * day named, 24-hour time; the caller names the zone).
 */
export function timeInWords(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone, dateStyle: "full", timeStyle: "short" }).format(at);
}

/** The IANA time zones this runtime knows (Intl), plus UTC. */
export function knownTimeZones(): string[] {
  const zones = Intl.supportedValuesOf("timeZone");
  return zones.includes("UTC") ? zones : ["UTC", ...zones];
}

/** True when `zone` is an IANA time zone this runtime can format in. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone.length <= 64 && /^[A-Za-z_+\-/0-9]+$/.test(zone);
  } catch {
    return false;
  }
}

/** The time zone of user `userId`, or null when none was chosen. */
export async function userTimeZone(db: Knex, userId: string): Promise<string | null> {
  const row = await db("users").where({ id: userId }).first("time_zone");
  return row?.time_zone ?? null;
}

/**
 * Sets the time zone of user `userId` (null clears it).
 * @throws ToolError validation_failed for a name that is not an IANA time zone.
 */
export async function setUserTimeZone(db: Knex, userId: string, zone: string | null): Promise<void> {
  if (zone !== null && !isTimeZone(zone))
    throw new ToolError("validation_failed", "time_zone must be an IANA time zone such as Europe/Berlin");
  await db("users").where({ id: userId }).update({ time_zone: zone });
}
