/**
 * The application context handed to every part of the service: configuration, database, logger, keys,
 * the clock and the queue. Built once per process (src/bootstrap.ts) or per test (test/helpers/app.ts).
 * Nothing in it is needed for correctness across instances: all shared state lives in Postgres.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "./config/index.ts";
import type { Sealer } from "./crypto/seal.ts";
import type { ChangeFeed } from "./db/change-feed.ts";
import type { Knex } from "./db/knex.ts";
import type { KeyMaterial } from "./keys.ts";
import type { Logger } from "./log.ts";
import type { Providers } from "./providers/providers.ts";

/**
 * Injectable clock: what time it is, and waiting for time to pass (tests move time forward to expire
 * approvals and tokens, and may let waits pass at once: test/helpers/app.ts).
 */
export interface Clock {
  now(): Date;
  /**
   * Resolves once `ms` milliseconds of this clock's time have passed.
   * @throws the signal's reason (an AbortError by default) when `signal` is aborted before.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: the system's time, and waits on timers. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : {}),
};

/**
 * The background queue (pg-boss, src/operations/).
 * `dispatch` sends an operation; `dispatchRender` sends the render job of a carousel run
 * (src/operations/render.ts).
 * @returns the queue's job id. @throws when the queue is unavailable (the caller records `dispatch_failed`,
 *   or leaves the run for maintenance to send again).
 */
export interface OperationQueue {
  dispatch(operationId: string): Promise<string>;
  dispatchRender(runId: string): Promise<string>;
}

export interface AppContext {
  config: Config;
  db: Knex;
  /**
   * A small pool whose commits are not waited for on disk (`synchronous_commit = off`), for the shared
   * rate-limit counters (src/runtime/rate-limit.ts; a counter lives one minute and need not survive a
   * crash of PostgreSQL itself) and the /mcp admission statement that counts the IP and the budget beside
   * the token's record (src/mcp/admission.ts), and the audit rows of read calls (src/runtime/audit.ts).
   * Not waiting for the WAL flush keeps the hot counter rows locked for less time and a read's answer off
   * the disk's flush latency. docs/operations.md "Audit rows and rate-limit counters: what a crash can lose".
   */
  asyncCommitDb: Knex;
  log: Logger;
  keys: KeyMaterial;
  /** Encrypts operation arguments/results and provider secrets at rest. */
  sealer: Sealer;
  clock: Clock;
  /** The boundaries to the outside (AI, video, networks, storage, fetch), built once from config. */
  providers: Providers;
  /** Set when the queue is started (serve and all); undefined in processes that only migrate. */
  queue: OperationQueue | undefined;
  /** Wake-ups of long polls when an operation or run changes, across instances (src/db/change-feed.ts). */
  changes: ChangeFeed;
}
