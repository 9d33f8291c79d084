/**
 * A worker killed mid-handler (child process, SIGKILL) leaves the operation `running`; after its deadline
 * maintenance marks it `outcome_unknown`, and nothing ever replays it (service spec 3.1 rule 4).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import { startWorker } from "../../src/operations/worker.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { call, connection, key, stateOf, useTools, waitFor } from "./helpers.ts";
import { blockForever } from "./kill-tool.ts";

const clock = new TestClock();
const app = await startTestApp({ clock, env: { OPERATION_DEADLINE_SECONDS: "60" } });
const rt = useTools(app, [blockForever]);
const owner = await app.user();
const auth = await connection(app, owner, ["create:products", "read:jobs"]);

test("SIGKILL mid-handler -> outcome_unknown after the deadline, never replayed", async () => {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./worker-child.ts", import.meta.url))], {
    env: {
      ...process.env,
      DATABASE_URL: app.ctx.config.databaseUrl,
      OPERATION_DEADLINE_SECONDS: "60",
      DATA_DIR: app.ctx.config.dataDir,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += String(d);
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  try {
    await waitFor(
      async () => out,
      (o) => o.includes("worker ready"),
      60_000,
    );
    const env = await call(rt, auth, "block_forever", { idempotency_key: key() });
    assert.equal(env.status, "queued");
    const id = env.operation_id as string;
    await waitFor(
      async () => out,
      (o) => o.includes(`handler started ${id}`),
      30_000,
    );
    assert.equal(await stateOf(app.ctx, id), "running");
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");

    // Before the deadline nothing changes; a duplicate delivery to a live worker does not start it again.
    const parentWorker = await startWorker(app.ctx, { schedules: false });
    try {
      await app.ctx.queue?.dispatch(id);
      await runMaintenance(app.ctx);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await stateOf(app.ctx, id), "running");
      clock.advance(61);
      const report = await runMaintenance(app.ctx);
      assert.equal(report.overdue, 1);
      assert.equal(await stateOf(app.ctx, id), "outcome_unknown");
      clock.advance(3600);
      await runMaintenance(app.ctx);
      await app.ctx.queue?.dispatch(id);
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await parentWorker.stop();
    }
    const row = await app.ctx.db("operations").where({ id }).first();
    assert.equal(row.state, "outcome_unknown");
    assert.equal(row.attempts, 1, "claimed once, never replayed");
    const started = await app.ctx.db("products").where({ name: `started ${id}` });
    assert.equal(started.length, 1, "the handler started exactly once");
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});
