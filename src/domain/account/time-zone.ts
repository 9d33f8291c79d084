/**
 * The user's time zone (`users.time_zone`, an IANA name; default `UTC`): browser pages show times in it
 * (the posts page's schedules, deliveries and week view). Set on /settings; any zone the runtime's IANA
 * data knows (`Intl.supportedValuesOf("timeZone")`) plus `UTC`.
 */
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";

/** The zone a user without a choice has. */
export const DEFAULT_TIME_ZONE = "UTC";

let zones: ReadonlySet<string> | undefined;

/** Every time zone a user may choose, sorted: the runtime's IANA zones and `UTC`. */
export function timeZones(): readonly string[] {
  zones ??= new Set([DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf("timeZone")]);
  return [...zones].sort();
}

/** True when `zone` is one of `timeZones()`. */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== "string") return false;
  timeZones();
  return zones!.has(zone);
}

/** The user's time zone (`UTC` for an unknown user or a zone the runtime no longer knows). */
export async function userTimeZone(db: Knex, userId: string): Promise<string> {
  const row = await db("users").where({ id: userId }).first("time_zone");
  return isTimeZone(row?.time_zone) ? row.time_zone : DEFAULT_TIME_ZONE;
}

/**
 * Sets the user's time zone.
 * @throws ToolError validation_failed when `zone` is not an IANA time zone name of `timeZones()`.
 */
export async function setUserTimeZone(db: Knex, userId: string, zone: unknown): Promise<string> {
  if (!isTimeZone(zone)) {
    throw ToolError.validation("time_zone must be an IANA time zone name such as Europe/Berlin", {
      path: "/time_zone",
      keyword: "enum",
      rule: "must be an IANA time zone name",
    });
  }
  await db("users").where({ id: userId }).update({ time_zone: zone, updated_at: db.fn.now() });
  return zone;
}
