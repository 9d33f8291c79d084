/**
 * Liveness and readiness of a process (docs/operations.md "Health and readiness"), answered by every
 * command: `serve` and `all` on their HTTP port (src/app.ts), any command on HEALTH_PORT (./listeners.ts).
 *
 * - `GET /healthz`: 200 `{"status":"ok"}` while the process runs its event loop; it touches no dependency,
 *   so a database outage never gets a healthy process restarted.
 * - `GET /readyz`: 200 `{"status":"ready","checks":{...}}` when every check passes, else 503 with
 *   `"status":"not_ready"`, the names of the failed checks in `failed` and each check's result: `postgres`
 *   (the service's pool answers, within 2 s), `migrations` (every migration of this build is applied),
 *   `pg_boss` (the process's pg-boss instances have started and not stopped), `media_storage` (a probe
 *   file can be written to the configured storage and removed; the result is kept 10 s). A reason names
 *   the kind of failure and an error code only: never a connection string, a host, a key or a message.
 * - From the moment the process is told to stop (SIGTERM, `markStopping`), `/readyz` answers 503
 *   `{"status":"stopping"}` at once, before the drain, so that a load balancer stops sending traffic.
 */
import { readdir } from "node:fs/promises";
import type { AppContext } from "../context.ts";
import { MIGRATIONS_DIR } from "../db/knex.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { errorSummary } from "../log.ts";
import { bossReadiness } from "../operations/boss.ts";

/** The readiness checks, in the order they are reported. */
export const READINESS_CHECKS = ["postgres", "migrations", "pg_boss", "media_storage"] as const;
export type ReadinessCheck = (typeof READINESS_CHECKS)[number];

/** One check's result: `ok`, `failed` (with a reason) or `skipped` (it depends on one that failed). */
export interface CheckResult {
  status: "ok" | "failed" | "skipped";
  reason?: string;
}

/** The body of `/readyz`. */
export interface ReadinessReport {
  status: "ready" | "not_ready" | "stopping";
  /** The checks that failed, by name (empty when ready; absent while stopping). */
  failed?: ReadinessCheck[];
  checks?: Record<ReadinessCheck, CheckResult>;
}

/** How long the database check waits for an answer, milliseconds. */
export const POSTGRES_CHECK_TIMEOUT_MS = 2000;
/** How long a media storage probe's result is kept, milliseconds. */
const STORAGE_PROBE_TTL_MS = 10_000;

export interface Health {
  /** Marks the process as stopping: `/readyz` answers 503 from now on. */
  markStopping(): void;
  readonly stopping: boolean;
  /** Runs the checks (concurrent callers share one run). Never throws. */
  readiness(): Promise<ReadinessReport>;
}

const byContext = new WeakMap<AppContext, Health>();

/** The health of `ctx`'s process (one per application context). */
export function healthOf(ctx: AppContext): Health {
  let health = byContext.get(ctx);
  if (!health) {
    health = createHealth(ctx);
    byContext.set(ctx, health);
  }
  return health;
}

/** Rejects after `ms` with an error named `TimeoutError`; the timer never holds the process open. */
function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    setTimeout(() => reject(Object.assign(new Error("timed out"), { name: "TimeoutError" })), ms).unref();
  });
}

/**
 * SQLSTATEs of a server that refuses connections (https://www.postgresql.org/docs/current/errcodes-appendix.html):
 * 53300 too_many_connections, 55000 object_not_in_prerequisite_state (the database does not allow
 * connections), 57P03 cannot_connect_now, 28000/28P01 invalid authorization.
 */
const REFUSED = new Set(["53300", "55000", "57P03", "28000", "28P01"]);

/**
 * A reason safe to show: the kind of failure (no answer in time, refused, unreachable, error) and, when it is
 * a short identifier, the error's code (SQLSTATE or socket code). Never the message.
 */
function reasonOf(err: unknown): string {
  if ((err as { name?: unknown })?.name === "TimeoutError")
    return `no answer within ${POSTGRES_CHECK_TIMEOUT_MS / 1000} s`;
  const { errorCode } = errorSummary(err);
  const kind =
    errorCode && REFUSED.has(errorCode)
      ? "refused connections"
      : isDatabaseUnavailable(err)
        ? "unreachable"
        : "error";
  return errorCode ? `${kind} (${errorCode})` : kind;
}

function createHealth(ctx: AppContext): Health {
  let stopping = false;
  let running: Promise<ReadinessReport> | undefined;
  let storage: { at: number; result: CheckResult } | undefined;
  let migrationNames: Promise<string[]> | undefined;

  /** The migration files of this build (read once). */
  const migrations = () => {
    migrationNames ??= readdir(MIGRATIONS_DIR).then((files) =>
      files.filter((f) => /^\d{14}_.+\.ts$/.test(f)).sort(),
    );
    return migrationNames;
  };

  /** `postgres` and `migrations` in one round trip: how many of this build's migrations are recorded. */
  async function database(): Promise<Pick<Record<ReadinessCheck, CheckResult>, "postgres" | "migrations">> {
    let names: string[];
    try {
      names = await migrations();
    } catch {
      return {
        postgres: { status: "skipped", reason: "the migrations folder cannot be read" },
        migrations: { status: "failed", reason: "the migrations folder cannot be read" },
      };
    }
    try {
      const query = ctx.db
        .raw("select count(*)::int as n from knex_migrations where name = any(?)", [names])
        .timeout(POSTGRES_CHECK_TIMEOUT_MS, { cancel: true });
      const result = (await Promise.race([query, timeout(POSTGRES_CHECK_TIMEOUT_MS)])) as {
        rows: Array<{ n: number }>;
      };
      const applied = result.rows[0]?.n ?? 0;
      return {
        postgres: { status: "ok" },
        migrations:
          applied === names.length
            ? { status: "ok" }
            : {
                status: "failed",
                reason: `${names.length - applied} of ${names.length} migrations not applied`,
              },
      };
    } catch (err) {
      return {
        postgres: { status: "failed", reason: reasonOf(err) },
        migrations: { status: "skipped", reason: "postgres failed" },
      };
    }
  }

  /** A probe file written to the media storage and removed; the result is kept STORAGE_PROBE_TTL_MS. */
  async function mediaStorage(): Promise<CheckResult> {
    const now = Date.now();
    if (storage && now - storage.at < STORAGE_PROBE_TTL_MS) return storage.result;
    const store = ctx.providers.storage;
    const key = store.newKey("probe");
    let result: CheckResult;
    try {
      await Promise.race([store.putBytes(key, new Uint8Array([0x6f, 0x6b])), timeout(5000)]);
      await store.remove(key).catch(() => {});
      result = { status: "ok" };
    } catch (err) {
      const { errorCode } = errorSummary(err);
      result = { status: "failed", reason: `not writable${errorCode ? ` (${errorCode})` : ""}` };
    }
    storage = { at: now, result };
    return result;
  }

  async function run(): Promise<ReadinessReport> {
    const [db, media] = await Promise.all([database(), mediaStorage()]);
    const boss = bossReadiness(ctx);
    const checks: Record<ReadinessCheck, CheckResult> = {
      ...db,
      pg_boss: boss === "ok" ? { status: "ok" } : { status: "failed", reason: boss },
      media_storage: media,
    };
    const failed = READINESS_CHECKS.filter((c) => checks[c].status === "failed");
    if (stopping) return { status: "stopping" };
    return { status: failed.length === 0 ? "ready" : "not_ready", failed, checks };
  }

  return {
    markStopping() {
      stopping = true;
    },
    get stopping() {
      return stopping;
    },
    readiness() {
      if (stopping) return Promise.resolve({ status: "stopping" });
      running ??= run().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}

/** The status code of a readiness report: 200 when ready, else 503. */
export function readinessStatus(report: ReadinessReport): 200 | 503 {
  return report.status === "ready" ? 200 : 503;
}
