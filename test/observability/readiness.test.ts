/**
 * Liveness and readiness (src/observability/health.ts, listeners.ts; docs/operations.md "Health and
 * readiness"): /healthz and /readyz on the HTTP port and on HEALTH_PORT; /readyz turns 503 naming `postgres`
 * while PostgreSQL refuses the service (its connections terminated and new ones disallowed on its database)
 * and 200 again afterwards, while /healthz stays 200; the body never holds the connection string; a
 * `worker` process answers on HEALTH_PORT and turns 503 `stopping` as soon as it gets SIGTERM, before its
 * drain ends.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import pg from "pg";
import { startTestApp } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { waitFor } from "../operations/helpers.ts";

const app = await startTestApp({ env: { HEALTH_PORT: "0" } });
const adminUrl =
  process.env.TEST_ADMIN_DATABASE_URL ??
  process.env.DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/postgres";
const database = new URL(app.ctx.config.databaseUrl!).pathname.slice(1);

async function get(url: string): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

/** Runs `sql` as the administrator, on the `postgres` database. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

test("/healthz and /readyz answer on the HTTP port and on HEALTH_PORT, with each check named", async () => {
  for (const base of [app.url, app.healthUrl!]) {
    const live = await get(`${base}/healthz`);
    assert.equal(live.status, 200);
    assert.deepEqual(live.body, { status: "ok" });
    const ready = await get(`${base}/readyz`);
    assert.equal(ready.status, 200, ready.text);
    assert.equal(ready.body.status, "ready");
    assert.deepEqual(ready.body.failed, []);
    for (const check of ["postgres", "migrations", "pg_boss", "media_storage"])
      assert.equal(ready.body.checks[check].status, "ok", check);
  }
  const other = await fetch(`${app.healthUrl}/metrics`);
  assert.equal(other.status, 404, "the health listener serves nothing else");
});

test("/readyz is 503 naming postgres while PostgreSQL refuses the service, then 200 again; /healthz stays 200", async () => {
  await admin(`alter database ${database} allow_connections false`);
  try {
    await admin(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}' and pid <> pg_backend_pid()`,
    );
    const down = await waitFor(
      () => get(`${app.url}/readyz`),
      (r) => r.status === 503,
      20_000,
    );
    assert.equal(down.body.status, "not_ready");
    assert.ok(down.body.failed.includes("postgres"), down.text);
    assert.equal(down.body.checks.postgres.status, "failed");
    assert.equal(down.body.checks.migrations.status, "skipped");
    assert.equal(down.body.checks.media_storage.status, "ok");
    for (const secret of [app.ctx.config.databaseUrl!, database, "127.0.0.1", "5432", "postgres://"])
      assert.ok(!down.text.includes(secret), `the body names no ${secret}`);
    const onHealthPort = await get(`${app.healthUrl}/readyz`);
    assert.equal(onHealthPort.status, 503);
    assert.ok(onHealthPort.body.failed.includes("postgres"));
    for (const base of [app.url, app.healthUrl!]) assert.equal((await get(`${base}/healthz`)).status, 200);
  } finally {
    await admin(`alter database ${database} allow_connections true`);
  }
  const up = await waitFor(
    () => get(`${app.url}/readyz`),
    (r) => r.status === 200,
    20_000,
  );
  assert.equal(up.body.status, "ready");
  assert.equal((await get(`${app.healthUrl}/readyz`)).status, 200);
});

test("a worker answers on HEALTH_PORT and turns 503 at once on SIGTERM, before its drain ends", async () => {
  const { url } = await freshDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "smcp-health-"));
  const child = spawn(process.execPath, ["src/main.ts", "worker"], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      HEALTH_PORT: "0",
      HOST: "127.0.0.1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  child.stderr.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    const port = Number(
      (
        await waitFor(
          async () => /HEALTH_PORT (\d+)/.exec(out),
          (m) => m !== null,
          60_000,
        )
      )?.[1],
    );
    const base = `http://127.0.0.1:${port}`;
    assert.equal((await get(`${base}/readyz`)).status, 200, out);
    child.kill("SIGTERM");
    // Every answer from now on is 503 `stopping` (never `ready`), until the listener closes at the end.
    const seen: number[] = [];
    for (;;) {
      const r = await get(`${base}/readyz`).catch(() => undefined);
      if (!r) break;
      seen.push(r.status);
      if (r.status === 503) {
        assert.deepEqual(r.body, { status: "stopping" });
        // Alive while it drains; a fresh database drains in milliseconds, so the listener may have closed
        // (the drain's end) before this request: then there is no answer, never a non-200 one.
        const live = await get(`${base}/healthz`).catch(() => undefined);
        if (live) assert.equal(live.status, 200, "alive while it drains");
        break;
      }
    }
    assert.ok(seen.includes(503), `a 503 before the listener closed (answers: ${seen.join(", ")})`);
    assert.ok(seen.filter((s) => s === 200).length <= 1, "at most the answer already under way was 200");
    assert.equal(await exited, 0);
  } finally {
    child.kill("SIGKILL");
  }
});
