/**
 * Group-commit batching (src/db/batcher.ts): items sent in one turn of the event loop go together, at most
 * `maxInFlight` runs are under way and the items sent meanwhile go together in the next, each caller gets
 * its own result, a failed run fails only its own batch, and `maxBatch` bounds a run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createBatcher } from "../../src/db/batcher.ts";

/** A run that records its batches and answers when `release` is called (oldest first). */
function gatedRun() {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  const run = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => gates.push(resolve));
    return items.map((n) => n * 10);
  };
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()?.();
  };
  return { batches, run, release };
}

const turn = () => new Promise((r) => setImmediate(r));

test("items sent in one turn share a run; items sent while it runs share the next", async () => {
  const g = gatedRun();
  const b = createBatcher(g.run, 100, 1);
  const first = [1, 2].map((n) => b.submit(n));
  assert.deepEqual(g.batches, [], "the run starts after the turn");
  await turn();
  assert.deepEqual(g.batches, [[1, 2]]);
  const rest = [3, 4, 5].map((n) => b.submit(n));
  await turn();
  assert.deepEqual(g.batches, [[1, 2]], "one run at a time: the others wait for it");
  await g.release();
  assert.deepEqual(await Promise.all(first), [10, 20]);
  await g.release();
  assert.deepEqual(await Promise.all(rest), [30, 40, 50]);
  assert.deepEqual(g.batches, [
    [1, 2],
    [3, 4, 5],
  ]);
});

test("with two runs in flight, the next turn's items start while the first run is under way", async () => {
  const g = gatedRun();
  const b = createBatcher(g.run, 100, 2);
  const first = b.submit(1);
  await turn();
  const second = [2, 3].map((n) => b.submit(n));
  await turn();
  const third = b.submit(4);
  await turn();
  assert.deepEqual(g.batches, [[1], [2, 3]], "a third run waits for one of the two");
  await g.release();
  assert.equal(await first, 10);
  await turn();
  assert.deepEqual(g.batches, [[1], [2, 3], [4]]);
  await g.release();
  await g.release();
  assert.deepEqual(await Promise.all(second), [20, 30]);
  assert.equal(await third, 40);
});

test("maxBatch bounds a run; the rest goes in the next ones", async () => {
  const g = gatedRun();
  const b = createBatcher(g.run, 2, 2);
  const all = [1, 2, 3, 4, 5].map((n) => b.submit(n));
  for (let i = 0; i < 3; i++) await g.release();
  assert.deepEqual(await Promise.all(all), [10, 20, 30, 40, 50]);
  assert.deepEqual(g.batches, [[1, 2], [3, 4], [5]]);
});

test("a failed run rejects every item of its batch and no other", async () => {
  let calls = 0;
  const b = createBatcher(async (items: string[]) => {
    calls++;
    if (items.includes("bad")) throw new Error("statement failed");
    return items.map((s) => s.toUpperCase());
  }, 100);
  const ok1 = b.submit("a");
  await turn();
  const bad = [b.submit("b"), b.submit("bad")];
  assert.equal(await ok1, "A");
  for (const p of bad) await assert.rejects(p, /statement failed/);
  assert.equal(await b.submit("c"), "C", "the batcher keeps working after a failed batch");
  assert.equal(calls, 3);
});

test("a run that answers the wrong number of results fails its batch", async () => {
  const b = createBatcher(async (items: number[]) => items.slice(1), 100);
  await assert.rejects(b.submit(1), /returned 0 results for 1 items/);
});
