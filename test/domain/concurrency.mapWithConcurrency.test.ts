/**
 * src/domain/concurrency.ts: the bound is kept and reached, results keep their order, the first error is
 * thrown only after the calls already running have settled and no later item starts. Tasks finish when the
 * test releases them (no timing).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createLimiter, mapWithConcurrency } from "../../src/domain/concurrency.ts";

/** Tasks that wait until released, counting how many run at once. */
function gated() {
  const state = { running: 0, max: 0, started: [] as number[], release: new Map<number, () => void>() };
  const task = async (i: number) => {
    state.started.push(i);
    state.running += 1;
    state.max = Math.max(state.max, state.running);
    await new Promise<void>((r) => state.release.set(i, r));
    state.running -= 1;
    return i * 10;
  };
  return { state, task };
}

const tick = () => new Promise((r) => setImmediate(r));

test("mapWithConcurrency runs at most `limit` at once, reaches it, and keeps the items' order", async () => {
  const { state, task } = gated();
  const out = mapWithConcurrency([0, 1, 2, 3, 4, 5, 6], 3, task);
  await tick();
  assert.deepEqual(state.started, [0, 1, 2]);
  // Finish them out of order: each finished one lets exactly one more start.
  for (const i of [2, 0, 1, 5, 3, 4, 6]) {
    while (!state.release.has(i)) await tick();
    state.release.get(i)!();
    await tick();
    assert.ok(state.running <= 3);
  }
  assert.deepEqual(await out, [0, 10, 20, 30, 40, 50, 60]);
  assert.equal(state.max, 3);
});

test("after a failure no new item starts; running ones settle before the first error is thrown", async () => {
  const started: number[] = [];
  let slowDone = false;
  let releaseSlow: () => void = () => {};
  const out = mapWithConcurrency([0, 1, 2, 3], 2, async (i) => {
    started.push(i);
    if (i === 0) {
      await new Promise<void>((r) => (releaseSlow = r));
      slowDone = true;
      return i;
    }
    throw new Error(`item ${i} failed`);
  });
  let settled = false;
  out.catch(() => {}).finally(() => (settled = true));
  await tick();
  await tick();
  assert.equal(settled, false, "still waiting for the running item");
  releaseSlow();
  await assert.rejects(out, /item 1 failed/);
  assert.ok(slowDone);
  assert.deepEqual(started, [0, 1], "items 2 and 3 never started");
});

test("createLimiter serves turns in arrival order and refuses a limit below 1", async () => {
  const limiter = createLimiter(1);
  const order: string[] = [];
  const end = await limiter.acquire();
  const a = limiter.run(async () => order.push("a"));
  const b = limiter.run(async () => order.push("b"));
  await tick();
  assert.deepEqual(order, [], "both wait for the held turn");
  end();
  end(); // a second call is harmless
  await Promise.all([a, b]);
  assert.deepEqual(order, ["a", "b"]);
  assert.throws(() => createLimiter(0), RangeError);
  await assert.rejects(
    mapWithConcurrency([1], 0, async (x) => x),
    RangeError,
  );
});
