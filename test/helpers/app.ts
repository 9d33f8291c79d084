/**
 * Starts the real service (HTTP app, optionally queue + worker) on a fresh database and a free port.
 * The base URL is http://127.0.0.1:<port>; the MCP resource is <base>/mcp.
 */
import http from "node:http";
import { mkdtemp } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";
import { setImmediate } from "node:timers/promises";
import { boot } from "../../src/bootstrap.ts";
import { type AppContext, type Clock, systemClock } from "../../src/context.ts";
import { createUser, type NewUser } from "../../src/domain/account/accounts.ts";
import { startQueue } from "../../src/operations/queue.ts";
import { startWorker } from "../../src/operations/worker.ts";
import type { Logger } from "../../src/log.ts";
import { startHealthListener, startMetricsListener } from "../../src/observability/listeners.ts";
import type { Providers } from "../../src/providers/providers.ts";
import { startServer } from "../../src/server.ts";
import { freshDatabase } from "./db.ts";

export interface TestApp {
  url: string;
  resource: string;
  ctx: AppContext;
  /** `http://host:port/metrics` when the app was started with METRICS_PORT (src/observability/listeners.ts). */
  metricsUrl: string | undefined;
  /** `http://127.0.0.1:port` of the health listener when the app was started with HEALTH_PORT. */
  healthUrl: string | undefined;
  /** Creates a user (default plan creator) with a workspace; returns ids and the credentials. */
  user(
    input?: Partial<NewUser>,
  ): Promise<{ user_id: string; workspace_id: string; email: string; password: string }>;
  close(): Promise<void>;
}

/**
 * A wait that passes at once: it resolves on the event loop's next turn, or rejects when `signal` is aborted
 * (a rejected promise, as the system clock's, never a synchronous throw).
 */
const nextTurn = (signal?: AbortSignal): Promise<void> => setImmediate(undefined, signal ? { signal } : {});

/**
 * A clock tests can move: the system's time plus what `advance(seconds)` added. With `skipWaits` a wait on
 * it (`sleep`: the delivery engine's wait for a network's next poll or Retry-After) passes at once and moves
 * the clock by its length, so a test sees the same steps at the same clock times without waiting them out;
 * otherwise it waits on a timer.
 */
export class TestClock implements Clock {
  private offsetMs = 0;
  private readonly skipWaits: boolean;
  constructor(options: { skipWaits?: boolean } = {}) {
    this.skipWaits = options.skipWaits ?? false;
  }
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.skipWaits) return systemClock.sleep(ms, signal);
    if (!signal?.aborted) this.offsetMs += ms;
    return nextTurn(signal);
  }
}

/**
 * A clock that moves only when told (`set(iso)`, `advance(seconds)`) or waited on (`sleep` passes at once and
 * moves it by the wait): its times are exact.
 */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: string | number = Date.now()) {
    this.t = typeof start === "string" ? Date.parse(start) : start;
  }
  now(): Date {
    return new Date(this.t);
  }
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
  advance(seconds: number): void {
    this.t += seconds * 1000;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (!signal?.aborted) this.t += ms;
    return nextTurn(signal);
  }
}

let userCounter = 0;

/**
 * The test apps hash passwords at the cheapest cost the service accepts (OWASP's minimum argon2id: 19 MiB,
 * 2 passes, 1 lane; about 80 ms of CPU against 420 ms at the default), so that the hundreds of sign-ups and
 * sign-ins of the suite do not spend minutes of CPU in argon2. The default cost has its own test
 * (test/domain/account.passwordHashing.test.ts); `env` may set other values.
 */
export const TEST_PASSWORD_HASH_ENV = {
  PASSWORD_HASH_MEMORY_KIB: "19456",
  PASSWORD_HASH_TIME_COST: "2",
  PASSWORD_HASH_PARALLELISM: "1",
};

/**
 * Starts the app. `env` overrides settings; `worker: true` also starts the queue consumer and maintenance.
 * Everything is stopped after the file's tests (or by `close()`).
 */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    worker?: boolean;
    queue?: boolean;
    logger?: Logger;
    /** Providers to use instead of the configured ones (fakes at the boundary). */
    providers?: Partial<Providers>;
  } = {},
): Promise<TestApp> {
  const database = await freshDatabase({ autoDrop: false });
  const databaseUrl = database.url;
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "smcp-test-"));
  const booted = await boot({
    env: {
      LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL: base,
      PORT: String(port),
      ANALYTICS_SYNC_PAUSE_MS: "0",
      ...TEST_PASSWORD_HASH_ENV,
      ...options.env,
      DATABASE_URL: databaseUrl,
    },
    migrate: false,
    clock: options.clock ?? systemClock,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
  });
  const { ctx } = booted;
  const stops: Array<() => Promise<void>> = [];
  if (options.queue !== false) {
    const q = await startQueue(ctx);
    ctx.queue = q.queue;
    stops.push(() => q.stop());
  }
  if (options.worker) {
    const w = await startWorker(ctx);
    stops.unshift(() => w.stop());
  }
  const running = await startServer(ctx, server);
  stops.unshift(() => running.close(1));
  // The listeners of their own, as src/main.ts starts them (they close last).
  const { healthPort, metricsPort, metricsHost } = ctx.config.observability;
  let metricsUrl: string | undefined;
  let healthUrl: string | undefined;
  if (metricsPort !== undefined) {
    const metrics = await startMetricsListener(ctx, metricsPort, metricsHost);
    stops.push(() => metrics.close());
    metricsUrl = `http://${metricsHost}:${metrics.port}/metrics`;
  }
  if (healthPort !== undefined) {
    const health = await startHealthListener(ctx, healthPort);
    stops.push(() => health.close());
    healthUrl = `http://127.0.0.1:${health.port}`;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const s of stops) await s().catch(() => {});
    await booted.close();
    await database.drop();
  };
  after(close);
  return {
    url: base,
    resource: ctx.config.resourceUrl,
    ctx,
    metricsUrl,
    healthUrl,
    async user(input = {}) {
      userCounter += 1;
      const email = input.email ?? `user${userCounter}-${Date.now()}@example.test`;
      const password = input.password ?? "correct horse battery staple";
      const ids = await createUser(
        ctx.db,
        { workspace: `Workspace ${userCounter}`, ...input, email, password },
        ctx.config.passwordHash,
      );
      return { ...ids, email, password };
    },
    close,
  };
}
