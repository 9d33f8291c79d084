/**
 * Daily automation slots across DST transitions (service spec 8) in two zones, Europe/Berlin and
 * America/New_York: the spring-forward gap and the fall-back repeat, with the times computed by
 * `Temporal.ZonedDateTime` (src/domain/automations/schedule.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { slotsBetween } from "../../src/domain/automations/schedule.ts";

const iso = (d: Date) => d.toISOString();
const at = (s: string) => new Date(s);

// 2026 transitions: Berlin 2026-03-29 02:00 CET -> 03:00 CEST, 2026-10-25 03:00 CEST -> 02:00 CET;
// New York 2026-03-08 02:00 EST -> 03:00 EDT, 2026-11-01 02:00 EDT -> 01:00 EST.

test("daily at 09:00 keeps local 09:00 across both Berlin transitions (offset +1 -> +2 -> +1)", () => {
  const tz = "Europe/Berlin";
  assert.deepEqual(
    slotsBetween(["09:00"], tz, at("2026-03-27T12:00:00Z"), at("2026-03-30T12:00:00Z")).map(iso),
    ["2026-03-28T08:00:00.000Z", "2026-03-29T07:00:00.000Z", "2026-03-30T07:00:00.000Z"],
  );
  assert.deepEqual(
    slotsBetween(["09:00"], tz, at("2026-10-24T00:00:00Z"), at("2026-10-26T12:00:00Z")).map(iso),
    ["2026-10-24T07:00:00.000Z", "2026-10-25T08:00:00.000Z", "2026-10-26T08:00:00.000Z"],
  );
});

test("Berlin spring-forward gap: 02:30 does not exist on 2026-03-29 and runs once at 03:30 CEST", () => {
  const slots = slotsBetween(
    ["02:30", "03:30"],
    "Europe/Berlin",
    at("2026-03-28T23:00:00Z"),
    at("2026-03-29T03:00:00Z"),
  );
  // 02:30 is moved forward by the one-hour gap onto 03:30 CEST = 01:30Z, the same instant as 03:30: one slot.
  assert.deepEqual(slots.map(iso), ["2026-03-29T01:30:00.000Z"]);
  // The day before and after, both times run at their own instants.
  assert.deepEqual(
    slotsBetween(["02:30"], "Europe/Berlin", at("2026-03-27T00:00:00Z"), at("2026-03-31T00:00:00Z")).map(iso),
    [
      "2026-03-27T01:30:00.000Z",
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:30:00.000Z",
      "2026-03-30T00:30:00.000Z",
    ],
  );
});

test("Berlin fall-back repeat: 02:30 happens twice on 2026-10-25 and runs once, at the CEST occurrence", () => {
  const slots = slotsBetween(
    ["02:30"],
    "Europe/Berlin",
    at("2026-10-24T22:00:00Z"),
    at("2026-10-25T03:00:00Z"),
  );
  assert.deepEqual(slots.map(iso), ["2026-10-25T00:30:00.000Z"]);
  // A pass whose window starts between the two occurrences does not run the second one.
  assert.deepEqual(
    slotsBetween(["02:30"], "Europe/Berlin", at("2026-10-25T00:45:00Z"), at("2026-10-25T03:00:00Z")),
    [],
  );
});

test("New York spring-forward gap: 02:15 on 2026-03-08 runs once at 03:15 EDT", () => {
  const slots = slotsBetween(
    ["02:15", "09:00"],
    "America/New_York",
    at("2026-03-08T05:00:00Z"),
    at("2026-03-09T05:00:00Z"),
  );
  assert.deepEqual(slots.map(iso), ["2026-03-08T07:15:00.000Z", "2026-03-08T13:00:00.000Z"]);
});

test("New York fall-back repeat: 01:15 on 2026-11-01 runs once at the EDT occurrence; 09:00 shifts to EST", () => {
  const slots = slotsBetween(
    ["01:15", "09:00"],
    "America/New_York",
    at("2026-11-01T04:00:00Z"),
    at("2026-11-02T04:00:00Z"),
  );
  // 01:15 EDT = 05:15Z (the EST repeat would be 06:15Z); 09:00 EST = 14:00Z.
  assert.deepEqual(slots.map(iso), ["2026-11-01T05:15:00.000Z", "2026-11-01T14:00:00.000Z"]);
  assert.deepEqual(
    slotsBetween(["01:15"], "America/New_York", at("2026-11-01T05:30:00Z"), at("2026-11-01T07:00:00Z")),
    [],
  );
});
