/**
 * Long polling of a record's state (DESIGN.md section 4: `wait_seconds`, 0 to 25, on get_job_status,
 * get_carousel and get_automation_run). The call reads the record; when its state is not settled it waits
 * until the state differs from the first read, or until the deadline, and answers with what it read last.
 * The state lives in PostgreSQL, so a change made by any instance or worker ends the wait: the change feed
 * (src/db/change-feed.ts, LISTEN/NOTIFY) wakes the waiter, which reads again; a recheck every
 * RECHECK_MS bounds the wait for a lost notification.
 *
 * A waiting call spends its budget unit once, when it starts (the pipeline's). Concurrent waits are bounded
 * per user and per process (`config.longPoll`): a call beyond a bound answers at once with the current state,
 * as with `wait_seconds: 0`.
 */
import type { AppContext } from "../context.ts";

/** The most a call may wait, in seconds (tools.yaml `wait_seconds` maximum). */
export const MAX_WAIT_SECONDS = 25;

/** How often a waiter reads the record even without a notification (milliseconds). */
const RECHECK_MS = 2_000;

/** Waits in progress in this process, per user. */
const waiting = new Map<string, number>();
let waitingTotal = 0;

/** What to watch: how to read the record, its state's fingerprint and whether it can still change. */
export interface Watched<T> {
  /** The change-feed key of the record (src/db/change-feed.ts `changeKey`). */
  key: string;
  read(): Promise<T>;
  /** A string that changes when the state an agent waits on changes (e.g. the status). */
  state(value: T): string;
  /** True when the record will not change by itself any more (e.g. succeeded, failed): answer at once. */
  settled(value: T): boolean;
}

/**
 * Reads `watched` and, when `waitSeconds > 0` and the state is not settled, waits for it to change (see the
 * module comment).
 * @param userId whose concurrent waits are counted.
 * @param signal aborted when the client goes away (the wait ends; the last read is returned).
 * @returns the last read value and how long the call waited (seconds).
 * @throws whatever `read` throws (e.g. ToolError not_found), on the first read or a later one.
 */
export async function readWhenChanged<T>(
  app: AppContext,
  userId: string,
  waitSeconds: number,
  signal: AbortSignal,
  watched: Watched<T>,
): Promise<{ value: T; waited_seconds: number }> {
  const first = await watched.read();
  const seconds = Math.min(Math.max(0, waitSeconds), MAX_WAIT_SECONDS);
  if (seconds === 0 || watched.settled(first)) return { value: first, waited_seconds: 0 };
  const limits = app.config.longPoll;
  const mine = waiting.get(userId) ?? 0;
  if (mine >= limits.maxPerUser || waitingTotal >= limits.maxPerProcess)
    return { value: first, waited_seconds: 0 };
  waiting.set(userId, mine + 1);
  waitingTotal += 1;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const initial = watched.state(first);
  let value = first;
  try {
    while (!signal.aborted) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      const woke = await app.changes.wait(watched.key, Math.min(left, RECHECK_MS), signal);
      if (woke === "aborted") break;
      value = await watched.read();
      if (watched.state(value) !== initial || watched.settled(value)) break;
    }
  } finally {
    const n = (waiting.get(userId) ?? 1) - 1;
    if (n <= 0) waiting.delete(userId);
    else waiting.set(userId, n);
    waitingTotal -= 1;
  }
  return { value, waited_seconds: Math.round((performance.now() - started) / 100) / 10 };
}
