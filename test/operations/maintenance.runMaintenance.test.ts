/**
 * Dispatch failure and recovery, and the maintenance pass (service spec 3.1, 6.3), on real pg-boss.
 * "Queue unavailable" is made real by renaming pg-boss's schema away and back.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BOSS_SCHEMA } from "../../src/operations/boss.ts";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { call, connection, key, makeTool, stateOf, useTools, waitFor } from "./helpers.ts";

let executed = 0;
const tool = makeTool({
  name: "count_job",
  scope: "create:products",
  queued: true,
  properties: { n: { type: "integer" } },
  required: ["n"],
  handler: {
    async accept(input) {
      return { data: { n: input.n } };
    },
    async execute(input) {
      executed += 1;
      return { data: { n: input.n } };
    },
  },
});

const clock = new TestClock();
const app = await startTestApp({ worker: true, clock, env: { RATE_LIMIT_WRITES: "1000" } });
const rt = useTools(app, [tool]);
const owner = await app.user();
const auth = await connection(app, owner, ["create:products", "read:jobs"]);

async function queueUnavailable<T>(fn: () => Promise<T>): Promise<T> {
  await app.ctx.db.raw(`alter schema ${BOSS_SCHEMA} rename to ${BOSS_SCHEMA}_off`);
  try {
    return await fn();
  } finally {
    await app.ctx.db.raw(`alter schema ${BOSS_SCHEMA}_off rename to ${BOSS_SCHEMA}`);
  }
}

test("dispatch failure -> dispatch_failed; retrying the identical call with the same key re-dispatches it", async () => {
  const k = key();
  const first = await queueUnavailable(() => call(rt, auth, "count_job", { idempotency_key: k, n: 1 }));
  assert.equal(first.status, "dispatch_failed");
  assert.equal(first.error, undefined);
  const id = first.operation_id as string;
  assert.equal(await stateOf(app.ctx, id), "dispatch_failed");
  // Still unavailable: the replay reports dispatch_failed again, same operation.
  const stillDown = await queueUnavailable(() => call(rt, auth, "count_job", { idempotency_key: k, n: 1 }));
  assert.equal(stillDown.status, "dispatch_failed");
  assert.equal(stillDown.operation_id, id);
  const before = executed;
  const retry = await call(rt, auth, "count_job", { idempotency_key: k, n: 1 });
  assert.equal(retry.operation_id, id);
  assert.equal(retry.status, "queued");
  await waitFor(
    () => stateOf(app.ctx, id),
    (s) => s === "succeeded",
  );
  assert.equal(executed - before, 1);
  // The stored envelope now says queued.
  const replay = await call(rt, auth, "count_job", { idempotency_key: k, n: 1 });
  assert.equal(replay.status, "queued");
});

test("dispatch failure is recovered by maintenance", async () => {
  const env = await queueUnavailable(() => call(rt, auth, "count_job", { idempotency_key: key(), n: 2 }));
  assert.equal(env.status, "dispatch_failed");
  const id = env.operation_id as string;
  const before = executed;
  const report = await runMaintenance(app.ctx);
  assert.ok(report.redispatched >= 1);
  await waitFor(
    () => stateOf(app.ctx, id),
    (s) => s === "succeeded",
  );
  assert.equal(executed - before, 1);
});

test("operations stranded in queued for more than 10 minutes are redispatched; fresh ones are not", async () => {
  // A queued operation whose job was lost (deleted from pg-boss before any worker saw it).
  const env = await queueUnavailable(() => call(rt, auth, "count_job", { idempotency_key: key(), n: 3 }));
  const id = env.operation_id as string;
  await app.ctx.db("operations").where({ id }).update({ state: "queued", queued_at: clock.now() });
  clock.advance(599);
  let report = await runMaintenance(app.ctx);
  assert.equal(report.redispatched, 0);
  assert.equal(await stateOf(app.ctx, id), "queued");
  clock.advance(2);
  const before = executed;
  report = await runMaintenance(app.ctx);
  assert.equal(report.redispatched, 1);
  await waitFor(
    () => stateOf(app.ctx, id),
    (s) => s === "succeeded",
  );
  assert.equal(executed - before, 1);
  // A finished operation is never redispatched or replayed.
  clock.advance(3600);
  report = await runMaintenance(app.ctx);
  assert.equal(report.redispatched, 0);
  assert.equal(executed - before, 1);
});

test("running past the deadline -> outcome_unknown; expired rate-limit rows are deleted", async () => {
  const env = await queueUnavailable(() => call(rt, auth, "count_job", { idempotency_key: key(), n: 4 }));
  const id = env.operation_id as string;
  const now = clock.now();
  await app.ctx
    .db("operations")
    .where({ id })
    .update({
      state: "running",
      claimed_at: now,
      deadline_at: new Date(now.getTime() + 900_000),
      attempts: 1,
    });
  await app.ctx.db("rate_limits").insert({ key: "test:expired", points: 1, expire: now.getTime() - 1000 });
  await app.ctx.db("rate_limits").insert({ key: "test:live", points: 1, expire: now.getTime() + 3_600_000 });
  let report = await runMaintenance(app.ctx);
  assert.equal(await stateOf(app.ctx, id), "running");
  assert.ok(report.rateLimitRows >= 1);
  assert.ok(await app.ctx.db("rate_limits").where({ key: "test:live" }).first());
  assert.equal(await app.ctx.db("rate_limits").where({ key: "test:expired" }).first(), undefined);
  clock.advance(901);
  report = await runMaintenance(app.ctx);
  assert.equal(report.overdue, 1);
  const row = await app.ctx.db("operations").where({ id }).first();
  assert.equal(row.state, "outcome_unknown");
  assert.equal(row.error_code, "outcome_unknown");
  assert.equal(row.attempts, 1);
});

test("the maintenance and analytics schedules are registered with pg-boss", async () => {
  const rows = await app.ctx.db.raw(`select name, cron, timezone from ${BOSS_SCHEMA}.schedule order by name`);
  const byName = Object.fromEntries(rows.rows.map((r: { name: string }) => [r.name, r]));
  assert.deepEqual(
    { cron: byName["operations-maintenance"]?.cron, tz: byName["operations-maintenance"]?.timezone },
    { cron: "*/5 * * * *", tz: "UTC" },
  );
  assert.deepEqual(
    { cron: byName["analytics-sync"]?.cron, tz: byName["analytics-sync"]?.timezone },
    { cron: "0 0 * * *", tz: "America/New_York" },
  );
  const queue = await app.ctx.db.raw(
    `select retry_limit, expire_seconds from ${BOSS_SCHEMA}.queue where name = 'operations'`,
  );
  assert.equal(queue.rows[0].retry_limit, 0);
  assert.ok(queue.rows[0].expire_seconds > 1800, "queue retry_after must exceed 1800 s");
});
