/** Daily automation slots in a time zone (service spec 8): window bounds, midnight, DST gaps and overlaps. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { slotsBetween, zonedInstant } from "../../src/domain/automations/schedule.ts";

const iso = (d: Date) => d.toISOString();
const at = (s: string) => new Date(s);

test("a daily time maps to its instant in the automation's time zone", () => {
  assert.equal(iso(zonedInstant(2026, 6, 1, 9, 0, "America/New_York")), "2026-06-01T13:00:00.000Z");
  assert.equal(iso(zonedInstant(2026, 1, 15, 9, 0, "America/New_York")), "2026-01-15T14:00:00.000Z");
  assert.equal(iso(zonedInstant(2026, 6, 1, 0, 15, "Asia/Kolkata")), "2026-05-31T18:45:00.000Z");
  assert.equal(iso(zonedInstant(2026, 6, 1, 23, 59, "UTC")), "2026-06-01T23:59:00.000Z");
});

test("DST: a skipped local time runs just after the jump, a repeated one runs at its first occurrence", () => {
  // New York springs forward at 02:00 EST on 2026-03-08: 02:30 does not exist -> 03:30 EDT.
  assert.equal(iso(zonedInstant(2026, 3, 8, 2, 30, "America/New_York")), "2026-03-08T07:30:00.000Z");
  // New York falls back at 02:00 EDT on 2026-11-01: 01:30 happens twice -> the EDT one.
  assert.equal(iso(zonedInstant(2026, 11, 1, 1, 30, "America/New_York")), "2026-11-01T05:30:00.000Z");
  // Berlin: the same rules east of UTC.
  assert.equal(iso(zonedInstant(2026, 3, 29, 2, 30, "Europe/Berlin")), "2026-03-29T01:30:00.000Z");
  assert.equal(iso(zonedInstant(2026, 10, 25, 2, 30, "Europe/Berlin")), "2026-10-25T00:30:00.000Z");
  // The repeated hour yields one slot, not two.
  const slots = slotsBetween(
    ["01:30"],
    "America/New_York",
    at("2026-11-01T04:00:00Z"),
    at("2026-11-01T08:00:00Z"),
  );
  assert.deepEqual(slots.map(iso), ["2026-11-01T05:30:00.000Z"]);
});

test("the window is half-open (after, upTo], ascending, across local midnight", () => {
  const times = ["09:00", "17:30"];
  const tz = "America/New_York";
  assert.deepEqual(slotsBetween(times, tz, at("2026-06-01T12:59:00Z"), at("2026-06-01T13:00:00Z")).map(iso), [
    "2026-06-01T13:00:00.000Z",
  ]);
  assert.deepEqual(slotsBetween(times, tz, at("2026-06-01T13:00:00Z"), at("2026-06-01T13:01:00Z")), []);
  assert.deepEqual(
    slotsBetween(
      ["23:50", "00:15"],
      "Asia/Kolkata",
      at("2026-05-31T18:00:00Z"),
      at("2026-06-01T19:00:00Z"),
    ).map(iso),
    [
      "2026-05-31T18:20:00.000Z",
      "2026-05-31T18:45:00.000Z",
      "2026-06-01T18:20:00.000Z",
      "2026-06-01T18:45:00.000Z",
    ],
  );
  assert.deepEqual(slotsBetween(times, tz, at("2026-06-01T14:00:00Z"), at("2026-06-01T13:00:00Z")), []);
});

test("bad input is refused", () => {
  assert.throws(() => slotsBetween(["9:00"], "UTC", at("2026-06-01T00:00:00Z"), at("2026-06-02T00:00:00Z")));
  assert.throws(
    () => slotsBetween(["09:00"], "Mars/Olympus", at("2026-06-01T00:00:00Z"), at("2026-06-02T00:00:00Z")),
    RangeError,
  );
});
