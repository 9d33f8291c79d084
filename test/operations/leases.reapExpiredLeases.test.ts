/**
 * Worker leases (docs/operations.md "Leases"): a running operation whose lease ran out lost its worker.
 * Resumable tools go back to `queued` (and run again from their checkpoints); others become
 * `outcome_unknown` at once. Live leases are left alone, and a worker that lost its lease stops its handler.
 * The process-level proof (SIGKILL of a real worker) is test/scale/crash.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { processOperation } from "../../src/operations/execute.ts";
import { reapExpiredLeases } from "../../src/operations/leases.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { call, connection, key, makeTool, stateOf, useTools } from "./helpers.ts";

let runs = 0;
const resumable = makeTool({
  name: "resumable_job",
  scope: "create:products",
  queued: true,
  handler: {
    resumable: true,
    async accept() {
      return { data: {} };
    },
    async execute() {
      runs += 1;
      return { data: {} };
    },
  },
});
let aborted: unknown;
let release: () => void = () => {};
const plain = makeTool({
  name: "plain_job",
  scope: "create:products",
  queued: true,
  handler: {
    async accept() {
      return { data: {} };
    },
    async execute(_input, ctx) {
      await new Promise<void>((resolve) => {
        release = resolve;
        ctx.signal.addEventListener("abort", () => {
          aborted = ctx.signal.reason;
          resolve();
        });
      });
      return { data: {} };
    },
  },
});

const clock = new TestClock();
const app = await startTestApp({ clock, env: { WORKER_LEASE_SECONDS: "3", RATE_LIMIT_WRITES: "1000" } });
const rt = useTools(app, [resumable, plain]);
const owner = await app.user();
const auth = await connection(app, owner, ["create:products", "read:jobs"]);

/** Leaves `id` as a worker that died after claiming it would: running, lease ended `ago` seconds back. */
async function claimedByDeadWorker(id: string, ago: number) {
  await app.ctx
    .db("operations")
    .where({ id })
    .update({
      state: "running",
      attempts: 1,
      claimed_at: clock.now(),
      lease_expires_at: new Date(clock.now().getTime() - ago * 1000),
    });
}

test("an expired lease: resumable -> queued and runs again; other -> outcome_unknown; live leases stay", async () => {
  const a = await call(rt, auth, "resumable_job", { idempotency_key: key() });
  const b = await call(rt, auth, "plain_job", { idempotency_key: key() });
  const c = await call(rt, auth, "plain_job", { idempotency_key: key() });
  await claimedByDeadWorker(a.operation_id!, 1);
  await claimedByDeadWorker(b.operation_id!, 1);
  await claimedByDeadWorker(c.operation_id!, -60); // lease still running: its worker is alive

  const report = await reapExpiredLeases(app.ctx);
  assert.deepEqual(report, { requeued: [a.operation_id], unknown: [b.operation_id] });
  assert.equal(await stateOf(app.ctx, a.operation_id!), "queued");
  const unknown = await app.ctx.db("operations").where({ id: b.operation_id }).first();
  assert.equal(unknown.state, "outcome_unknown");
  assert.equal(unknown.error_code, "outcome_unknown");
  assert.equal(await stateOf(app.ctx, c.operation_id!), "running");

  assert.deepEqual(
    await reapExpiredLeases(app.ctx),
    { requeued: [], unknown: [] },
    "a second pass finds nothing",
  );
  const resumed = await processOperation(app.ctx, a.operation_id!);
  assert.deepEqual(resumed, { claimed: true, state: "succeeded" });
  assert.equal(runs, 1);
  const row = await app.ctx.db("operations").where({ id: a.operation_id }).first("attempts");
  assert.equal(row.attempts, 2);
});

test("a worker extends its lease while the handler runs, and stops the handler when the lease is lost", async () => {
  const op = await call(rt, auth, "plain_job", { idempotency_key: key() });
  const running = processOperation(app.ctx, op.operation_id!);
  const leaseOf = async () =>
    (await app.ctx.db("operations").where({ id: op.operation_id }).first("lease_expires_at"))
      .lease_expires_at as Date;
  while ((await stateOf(app.ctx, op.operation_id!)) !== "running")
    await new Promise((r) => setTimeout(r, 20));
  const first = await leaseOf();
  await new Promise((r) => setTimeout(r, 1300));
  assert.ok((await leaseOf()).getTime() > first.getTime(), "the heartbeat moved the lease forward");

  // Another path took the operation over (its lease was reaped): the next heartbeat finds no row.
  await app.ctx.db("operations").where({ id: op.operation_id }).update({ attempts: 99 });
  const result = await running;
  assert.match(String((aborted as Error)?.message), /lease lost/);
  assert.equal(result.claimed, true);
  release();
});
