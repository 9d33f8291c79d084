/**
 * Wake-ups for long polls across instances (DESIGN.md section 4: `wait_seconds` on get_job_status,
 * get_carousel and get_automation_run), on PostgreSQL's LISTEN/NOTIFY
 * (https://www.postgresql.org/docs/current/sql-notify.html). Triggers of the migration
 * 20261128000000_state_changes send `pg_notify('smcp_state', '<kind>:<id>')` when an operation's state, a
 * carousel run's status or an automation run's status changes, in the transaction that changes it (so the
 * notification is delivered on commit, to every listening instance).
 *
 * One connection per process listens, opened on the first wait and kept. A wake-up is only a hint: the waiter
 * reads the record again (a notification can be lost when the connection drops, so waits are also bounded by a
 * recheck interval). Nothing here is needed for correctness, only for promptness.
 */
import pg from "pg";
import type { Logger } from "../log.ts";

/** The NOTIFY channel. */
export const STATE_CHANNEL = "smcp_state";

/** The payload of a change of record `id` of `kind` (what the triggers send). */
export function changeKey(kind: "operation" | "carousel_post" | "automation_run", id: string): string {
  return `${kind}:${id}`;
}

export interface ChangeFeed {
  /**
   * Resolves when a change of `key` is notified, after `ms` milliseconds, or when `signal` aborts or the feed
   * closes ("aborted"), whichever comes first. Never rejects.
   */
  wait(key: string, ms: number, signal?: AbortSignal): Promise<"changed" | "timeout" | "aborted">;
  /** Stops listening (the process is shutting down). */
  close(): Promise<void>;
}

/** A feed over the database at `url`. */
export function createChangeFeed(url: string, log: Logger): ChangeFeed {
  type Outcome = "changed" | "timeout" | "aborted";
  const waiters = new Map<string, Set<(outcome: Outcome) => void>>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;

  const wake = (key: string, outcome: Outcome = "changed") => {
    const set = waiters.get(key);
    if (!set) return;
    waiters.delete(key);
    for (const w of set) w(outcome);
  };

  const listen = (): Promise<void> => {
    if (client || closed) return Promise.resolve();
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: url, application_name: "social-mcp change feed" });
      c.on("notification", (n) => {
        if (n.channel === STATE_CHANNEL && n.payload) wake(n.payload);
      });
      c.on("error", (err) => {
        log.warn({ errName: err.name, errCode: (err as { code?: unknown }).code }, "change feed lost");
        if (client === c) client = undefined;
        c.end().catch(() => {});
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${STATE_CHANNEL}`);
        if (closed) await c.end();
        else client = c;
      } catch (err) {
        log.warn(
          { errName: (err as Error)?.name },
          "change feed could not listen; long polls recheck on a timer",
        );
        await c.end().catch(() => {});
      }
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  return {
    async wait(key, ms, signal) {
      if (signal?.aborted || closed) return "aborted";
      await listen();
      if (closed) return "aborted";
      return new Promise((resolve) => {
        let set = waiters.get(key);
        if (!set) {
          set = new Set();
          waiters.set(key, set);
        }
        const done = (outcome: Outcome) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          const current = waiters.get(key);
          current?.delete(onChange);
          if (current?.size === 0) waiters.delete(key);
          resolve(outcome);
        };
        const onChange = (outcome: Outcome) => done(outcome);
        const onAbort = () => done("aborted");
        const timer = setTimeout(() => done("timeout"), Math.max(0, ms));
        set.add(onChange);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    async close() {
      closed = true;
      await connecting;
      const c = client;
      client = undefined;
      for (const key of [...waiters.keys()]) wake(key, "aborted");
      if (c) await c.end().catch(() => {});
    },
  };
}
