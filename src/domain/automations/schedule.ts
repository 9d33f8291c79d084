/**
 * Daily configured times of automations (service spec 8: "Automations support daily configured times and
 * manual runs"). An enabled automation runs once at each of its `daily_times` (HH:MM, 24-hour) in its
 * `time_zone`. A pass (`runDueAutomations`, every minute from the worker's scheduler job) looks at the slots
 * that came due since the previous pass and starts exactly one run per (automation, slot):
 * - the run is a native run of src/domain/automations/run.ts with trigger `schedule` and `scheduled_slot`,
 *   charged like a manual run; the partial unique index (automation_id, scheduled_slot) makes a second
 *   start of the same slot (another worker, an overlapping or repeated pass) fail before anything is charged;
 * - a slot that cannot run (insufficient credits, a definition that is no longer valid) gets a `failed` run
 *   record with the reason and no charge, never an exception out of the pass;
 * - the window is (watermark, now], capped at CATCH_UP_SECONDS: after an outage, slots missed within the
 *   last hour run late once, older ones are skipped. An automation enabled after a slot's time does not
 *   run that slot (the slot lies before the watermark).
 * Times come from `app.clock`; zone rules from `Temporal.ZonedDateTime` (temporal-polyfill, IANA tz data
 * of the runtime). DST: a local time that occurs twice runs once, at its first occurrence; a local time
 * skipped by a DST jump runs once that day, moved forward by the length of the gap (02:30 -> 03:30).
 */
import { Temporal } from "temporal-polyfill";
import type { AppContext } from "../../context.ts";
import { ToolError } from "../../errors.ts";
import { runAutomation } from "./run.ts";
import { holdInactiveWork } from "../account/suspension.ts";

/** Slots older than this (seconds before now) are not started any more. */
export const CATCH_UP_SECONDS = 3600;
/** Window of the very first pass (no watermark yet), seconds. */
export const FIRST_PASS_SECONDS = 120;
/** The `scheduler_passes` row of this pass. */
const PASS_NAME = "automations";

export interface SchedulePassReport {
  /** The window looked at, ISO 8601: slots with after < slot <= up_to. */
  after: string;
  up_to: string;
  /** (automation, slot) pairs due in the window. */
  due: number;
  /** Runs started by this pass (whatever their outcome). */
  started: number;
  /** Slots that could not run and got a `failed` run record (credits, invalid definition). */
  refused: number;
  /** Slots another pass or worker had already run. */
  already_ran: number;
  /** Slots whose start failed unexpectedly (logged; the watermark stays so the next pass tries again). */
  errors: number;
}

export interface SchedulePassOptions {
  /** At most this many slots per pass, earliest first (default 200); the rest wait for the next pass. */
  limit?: number;
  /** Runs started in parallel (default 2). */
  concurrency?: number;
}

interface DueSlot {
  automationId: string;
  userId: string;
  workspaceId: string;
  slot: Date;
}

/**
 * Starts one run for every enabled automation's daily slot that came due since the last pass.
 * Safe to run concurrently with itself on any number of workers.
 * @returns what the pass did. Database errors outside a single slot propagate.
 */
export async function runDueAutomations(
  app: AppContext,
  options: SchedulePassOptions = {},
): Promise<SchedulePassReport> {
  const now = app.clock.now();
  const limit = options.limit ?? 200;
  const mark = await app.db("scheduler_passes").where({ name: PASS_NAME }).first("last_pass_at");
  const floor = now.getTime() - CATCH_UP_SECONDS * 1000;
  const from = mark ? new Date(mark.last_pass_at).getTime() : now.getTime() - FIRST_PASS_SECONDS * 1000;
  const after = new Date(Math.max(from, floor));
  const report: SchedulePassReport = {
    after: after.toISOString(),
    up_to: now.toISOString(),
    due: 0,
    started: 0,
    refused: 0,
    already_ran: 0,
    errors: 0,
  };
  if (after.getTime() >= now.getTime()) return report;
  // Enabled automations of suspended or removed users or workspaces are disabled with their reason.
  await holdInactiveWork(app.db, now);

  const rows: Array<{
    id: string;
    user_id: string;
    workspace_id: string;
    daily_times: unknown;
    time_zone: string;
  }> = await app
    .db("automations as a")
    .join("users as u", "u.id", "a.user_id")
    .join("memberships as m", (j) => j.on("m.user_id", "a.user_id").andOn("m.workspace_id", "a.workspace_id"))
    .join("workspaces as w", "w.id", "a.workspace_id")
    .where({ "a.status": "enabled", "u.status": "active", "w.status": "active" })
    .whereNull("a.deleted_at")
    .whereRaw("jsonb_array_length(a.daily_times) > 0")
    .select("a.id", "a.user_id", "a.workspace_id", "a.daily_times", "a.time_zone");
  const due: DueSlot[] = [];
  for (const r of rows) {
    const times = Array.isArray(r.daily_times) ? r.daily_times.filter((t) => typeof t === "string") : [];
    let slots: Date[];
    try {
      slots = slotsBetween(times, r.time_zone, after, now);
    } catch {
      app.log.warn({ automation_id: r.id }, "automation schedule: unusable daily times or time zone");
      continue;
    }
    for (const slot of slots)
      due.push({ automationId: r.id, userId: r.user_id, workspaceId: r.workspace_id, slot });
  }
  due.sort((a, b) => a.slot.getTime() - b.slot.getTime() || a.automationId.localeCompare(b.automationId));
  report.due = due.length;
  const batch = due.slice(0, limit);

  let next = 0;
  const lane = async () => {
    while (next < batch.length) {
      const item = batch[next++]!;
      const outcome = await startSlot(app, item);
      if (outcome === "started") report.started += 1;
      else if (outcome === "refused") report.refused += 1;
      else if (outcome === "already_ran") report.already_ran += 1;
      else report.errors += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, lane));

  // Move the watermark only when every due slot was settled; otherwise the next pass looks again (slots
  // already run are skipped by the unique index).
  if (report.errors === 0 && batch.length === due.length) {
    await app.db.raw(
      `insert into scheduler_passes (name, last_pass_at, updated_at) values (?, ?, now())
       on conflict (name) do update set
         last_pass_at = greatest(scheduler_passes.last_pass_at, excluded.last_pass_at), updated_at = now()`,
      [PASS_NAME, now],
    );
  }
  if (report.due > 0) app.log.info(report, "automation schedule pass");
  return report;
}

type SlotOutcome = "started" | "refused" | "already_ran" | "error";

/** Starts the run of one slot; never throws. */
async function startSlot(app: AppContext, s: DueSlot): Promise<SlotOutcome> {
  const log = { automation_id: s.automationId, slot: s.slot.toISOString() };
  const exists = await app
    .db("automation_runs")
    .where({ automation_id: s.automationId, scheduled_slot: s.slot })
    .first("id");
  if (exists) return "already_ran";
  const owner = { userId: s.userId, workspaceId: s.workspaceId };
  const signal = AbortSignal.timeout(app.config.worker.operationDeadlineSeconds * 1000);
  try {
    await runAutomation(app, owner, { automationId: s.automationId, signal, scheduledSlot: s.slot });
    return "started";
  } catch (err) {
    if (isUniqueViolation(err)) return "already_ran";
    if (err instanceof ToolError) {
      // Refused before anything was created or charged: record the slot as a failed run.
      const inserted = await recordRefusal(app, s, err).catch((e: unknown) => {
        app.log.error({ ...log, errName: (e as Error)?.name }, "automation schedule: refusal not recorded");
        return undefined;
      });
      if (inserted === undefined) return "error";
      app.log.info({ ...log, error_code: err.code }, "scheduled automation run refused");
      return inserted ? "refused" : "already_ran";
    }
    // runAutomation has recorded its run as failed when it got that far; the slot must not run twice.
    const ran = await app
      .db("automation_runs")
      .where({ automation_id: s.automationId, scheduled_slot: s.slot })
      .first("id")
      .catch(() => undefined);
    app.log.error({ ...log, errName: (err as Error)?.name }, "scheduled automation run failed");
    return ran ? "started" : "error";
  }
}

/** Inserts the `failed` run of a refused slot. @returns false when the slot already has a run. */
async function recordRefusal(app: AppContext, s: DueSlot, err: ToolError): Promise<boolean> {
  const now = app.clock.now();
  const a = await app.db("automations").where({ id: s.automationId }).first("kind");
  const reason =
    err.code === "forbidden"
      ? `not run: ${err.message}`
      : `not run: the automation's definition is no longer valid (${err.message})`;
  const result = await app.db.raw(
    `insert into automation_runs
       (workspace_id, user_id, automation_id, kind, trigger, status, credits_charged, error, scheduled_slot,
        started_at, finished_at, created_at, updated_at)
     values (?, ?, ?, ?, 'schedule', 'failed', 0, ?, ?, ?, ?, ?, ?)
     on conflict do nothing returning id`,
    [
      s.workspaceId,
      s.userId,
      s.automationId,
      a?.kind ?? "video",
      reason.slice(0, 500),
      s.slot,
      now,
      now,
      now,
      now,
    ],
  );
  return (result.rows as unknown[]).length > 0;
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown })?.code === "23505";
}

/** One calendar day in plain ISO form. */
function plainDate(y: number, mo: number, d: number): Temporal.PlainDate {
  return Temporal.PlainDate.from({ year: y, month: mo, day: d }, { overflow: "reject" });
}

/**
 * The instant of local date y-mo-d at hh:mm in `timeZone` (IANA name), by `Temporal.ZonedDateTime` with
 * `disambiguation: "compatible"` (RFC 5545 / Temporal proposal semantics): a wall time that occurs twice
 * (DST ends) gives the first occurrence; one that does not occur (DST starts) is moved forward by the
 * length of the gap (02:30 on a spring-forward night in New York -> 03:30 EDT).
 * @throws RangeError for an unknown time zone or an impossible date.
 */
export function zonedInstant(
  y: number,
  mo: number,
  d: number,
  hh: number,
  mm: number,
  timeZone: string,
): Date {
  const zoned = plainDate(y, mo, d).toZonedDateTime({
    timeZone,
    plainTime: Temporal.PlainTime.from({ hour: hh, minute: mm }),
  });
  // toZonedDateTime uses "compatible" disambiguation: earlier for repeats, later for gaps.
  return new Date(zoned.epochMilliseconds);
}

/**
 * The instants of the daily local times `times` ("HH:MM") in `timeZone` with after < instant <= upTo,
 * ascending and distinct.
 * @throws RangeError for an unknown time zone; Error for a time not in HH:MM form.
 */
export function slotsBetween(times: string[], timeZone: string, after: Date, upTo: Date): Date[] {
  if (upTo.getTime() <= after.getTime()) return [];
  const parsed = times.map((t) => {
    const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(t);
    if (!m) throw new Error("daily time must be HH:MM");
    return Temporal.PlainTime.from({ hour: Number(m[1]), minute: Number(m[2]) });
  });
  const out = new Set<number>();
  // Every local calendar date the window touches, with one day of margin on each side.
  const toLocalDate = (at: Date) =>
    Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(timeZone).toPlainDate();
  const last = toLocalDate(upTo).add({ days: 1 });
  for (let day = toLocalDate(after).subtract({ days: 1 }); Temporal.PlainDate.compare(day, last) <= 0; ) {
    for (const plainTime of parsed) {
      const ms = day.toZonedDateTime({ timeZone, plainTime }).epochMilliseconds;
      if (ms > after.getTime() && ms <= upTo.getTime()) out.add(ms);
    }
    day = day.add({ days: 1 });
  }
  return [...out].sort((a, b) => a - b).map((ms) => new Date(ms));
}
