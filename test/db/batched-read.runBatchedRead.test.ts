/**
 * Batched reads (src/db/batched-read.ts): the callers of one turn share one statement, and each gets
 * exactly the rows its own statement would return (a `limit` per caller, none for an unknown key); callers
 * with the same parameters get equal rows they may change independently; inside a transaction the read
 * runs alone and sees the transaction's work.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { batchedRead, runBatchedRead } from "../../src/db/batched-read.ts";
import { freshDatabase } from "../helpers/db.ts";

const { db } = await freshDatabase();
await db.raw("create table batched_items (owner text not null, n integer not null)");
await db("batched_items").insert([
  { owner: "a", n: 1 },
  { owner: "a", n: 2 },
  { owner: "a", n: 3 },
  { owner: "b", n: 10 },
]);

/** Up to `max` items of `owner`, largest first, with the backend and statement start that read them. */
const ITEMS = batchedRead(
  "test-batched-items",
  ["text", "integer"],
  ([owner, max]) => `select n, pg_backend_pid() as pid, statement_timestamp() as at
     from batched_items where owner = ${owner} order by n desc limit ${max}`,
);

interface Item {
  n: number;
  pid: number;
  at: Date;
}

test("the callers of one turn share one statement and each gets its own rows", async () => {
  const [a2, b5, a1, nobody] = await Promise.all([
    runBatchedRead<Item>(db, ITEMS, ["a", 2]),
    runBatchedRead<Item>(db, ITEMS, ["b", 5]),
    runBatchedRead<Item>(db, ITEMS, ["a", 1]),
    runBatchedRead<Item>(db, ITEMS, ["nobody", 3]),
  ]);
  assert.deepEqual(
    a2?.map((r) => r.n),
    [3, 2],
  );
  assert.deepEqual(
    b5?.map((r) => r.n),
    [10],
  );
  assert.deepEqual(
    a1?.map((r) => r.n),
    [3],
  );
  assert.deepEqual(nobody, []);
  const all = [...(a2 ?? []), ...(b5 ?? []), ...(a1 ?? [])];
  assert.equal(new Set(all.map((r) => `${r.pid} ${r.at.toISOString()}`)).size, 1, "one statement");
  assert.ok(
    all.every((r) => !("smcp_batch_index" in r)),
    "the batch's index column is not returned",
  );
});

test("callers with the same parameters get equal rows that are their own", async () => {
  const [first, second] = await Promise.all([
    runBatchedRead<Item>(db, ITEMS, ["a", 1]),
    runBatchedRead<Item>(db, ITEMS, ["a", 1]),
  ]);
  assert.deepEqual(first, second);
  assert.ok(first?.[0] && second?.[0]);
  first[0].n = 99;
  assert.equal(second[0].n, 3, "changing one caller's row leaves the other's alone");
});

test("a read alone, and a read in a transaction that sees the transaction's rows", async () => {
  assert.deepEqual(
    (await runBatchedRead<Item>(db, ITEMS, ["b", 1])).map((r) => r.n),
    [10],
  );
  await assert.rejects(
    db.transaction(async (trx) => {
      await trx("batched_items").insert({ owner: "c", n: 7 });
      const rows = await runBatchedRead<Item>(trx, ITEMS, ["c", 1]);
      assert.deepEqual(
        rows.map((r) => r.n),
        [7],
      );
      throw new Error("roll back");
    }),
    /roll back/,
  );
  assert.deepEqual(await runBatchedRead<Item>(db, ITEMS, ["c", 1]), []);
});

test("a failed batch fails each of its callers", async () => {
  const results = await Promise.allSettled([
    runBatchedRead<Item>(db, ITEMS, ["a", -1]),
    runBatchedRead<Item>(db, ITEMS, ["b", 1]),
  ]);
  // LIMIT must not be negative: the one statement fails, and both callers with it.
  assert.ok(results.every((r) => r.status === "rejected"));
});
