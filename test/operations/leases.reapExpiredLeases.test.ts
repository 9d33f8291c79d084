/**
 * Worker leases (docs/operations.md "Leases"): a running operation whose lease ran out lost its worker and
 * becomes `outcome_unknown` at once, whatever its tool: recovery never replays a handler already marked
 * running (service spec 3.1 rule 4). Live leases are left alone, and a worker that lost its lease stops its
 * handler. Carousel renders are resumed instead, as their own jobs (render.processCarouselRender.test.ts).
 * The process-level proof (SIGKILL of a real worker) is test/scale/crash.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { processOperation } from "../../src/operations/execute.ts";
import { reapExpiredLeases } from "../../src/operations/leases.ts";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { product } from "../tools/carousels/fixtures.ts";
import { call, connection, key, makeTool, stateOf, useTools, waitFor } from "./helpers.ts";

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
      await new Promise<void>((resolve, reject) => {
        release = resolve;
        ctx.signal.addEventListener("abort", () => {
          aborted = ctx.signal.reason;
          reject(ctx.signal.reason);
        });
      });
      return { data: {} };
    },
  },
});

const clock = new TestClock();
const app = await startTestApp({ clock, env: { WORKER_LEASE_SECONDS: "3", RATE_LIMIT_WRITES: "1000" } });
const rt = useTools(app, [plain, TOOLS_BY_NAME.get("generate_carousel")!]);
const owner = await app.user();
const auth = await connection(app, owner, ["create:products", "create:carousels", "read:jobs"]);
await grantCredits(app.ctx.db, owner.user_id, 100, "test:grant");

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

test("an expired lease -> outcome_unknown, never run again, carousel generation included; live leases stay", async () => {
  const carousel = await call(rt, auth, "generate_carousel", {
    product_id: await product(app, owner),
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  assert.equal(carousel.status, "queued", JSON.stringify(carousel));
  const b = await call(rt, auth, "plain_job", { idempotency_key: key() });
  const c = await call(rt, auth, "plain_job", { idempotency_key: key() });
  await claimedByDeadWorker(carousel.operation_id!, 1);
  await claimedByDeadWorker(b.operation_id!, 1);
  await claimedByDeadWorker(c.operation_id!, -60); // lease still running: its worker is alive

  const report = await reapExpiredLeases(app.ctx);
  assert.deepEqual(report.unknown.sort(), [carousel.operation_id, b.operation_id].sort());
  for (const id of [carousel.operation_id, b.operation_id]) {
    const row = await app.ctx.db("operations").where({ id }).first();
    assert.equal(row.state, "outcome_unknown");
    assert.equal(row.error_code, "outcome_unknown");
  }
  assert.equal(await stateOf(app.ctx, c.operation_id!), "running");
  assert.deepEqual(await reapExpiredLeases(app.ctx), { unknown: [] }, "a second pass finds nothing");
  // A redelivered job finds nothing to claim: the handler is never replayed.
  assert.deepEqual(await processOperation(app.ctx, carousel.operation_id!), { claimed: false });
  const row = await app.ctx.db("operations").where({ id: carousel.operation_id }).first("attempts");
  assert.equal(row.attempts, 1);
});

test("a worker extends its lease while the handler runs, and stops the handler when the lease is lost", async () => {
  const op = await call(rt, auth, "plain_job", { idempotency_key: key() });
  const running = processOperation(app.ctx, op.operation_id!);
  const leaseOf = async () =>
    (await app.ctx.db("operations").where({ id: op.operation_id }).first("lease_expires_at"))
      .lease_expires_at as Date;
  await waitFor(
    () => stateOf(app.ctx, op.operation_id!),
    (state) => state === "running",
  );
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

test("a heartbeat after the lease ran out finds it lost, though no reaper took the row: the handler stops", async () => {
  aborted = undefined;
  const op = await call(rt, auth, "plain_job", { idempotency_key: key() });
  const running = processOperation(app.ctx, op.operation_id!);
  await waitFor(
    () => stateOf(app.ctx, op.operation_id!),
    (state) => state === "running",
  );
  // The worker was paused past its lease end (3 s): the reaper has not come yet, and the next heartbeat
  // (every second) must not revive the lease another worker's reaper may take at any moment.
  clock.advance(4);
  try {
    await waitFor(
      async () => aborted,
      (reason) => reason !== undefined,
      15_000,
    );
    assert.match(String((aborted as Error)?.message), /lease lost/, "the handler was stopped");
  } finally {
    release();
  }
  const result = await running;
  assert.deepEqual(result, { claimed: true, state: "outcome_unknown" });
  const reaped = await reapExpiredLeases(app.ctx);
  assert.ok(
    !reaped.unknown.includes(op.operation_id!),
    "the worker itself ended it; nothing left for a reaper",
  );
});
