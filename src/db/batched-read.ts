/**
 * Reads that concurrent callers share (bench/README.md "Where the time goes"): a read statement written
 * once over named parameters runs for one caller as a prepared statement, and for the callers of one turn
 * of the event loop as ONE prepared statement that runs it for each of them (`cross join lateral` over
 * `unnest` of the callers' parameters), so N concurrent reads cost one database round trip instead of N.
 * Every caller gets exactly the rows its own statement would have returned (in the statement's order; a
 * `limit` applies per caller), all from one snapshot, as concurrent reads would have seen anyway.
 *
 * Only for statements without side effects. Inside a transaction the statement runs alone, on the
 * transaction's connection (it must see the transaction's work).
 */
import { type Batcher, createBatcher } from "./batcher.ts";
import type { Knex } from "./knex.ts";
import { runPrepared, type Statement, statement } from "./prepared.ts";

/** A read statement in its two forms (`batchedRead`). */
export interface BatchedRead {
  readonly name: string;
  /** The statement for one caller: `$1`..`$n` are the parameters. */
  readonly single: Statement;
  /** The statement for a batch: `$1` the callers' indexes, `$2`..`$n+1` arrays of their parameters. */
  readonly batch: Statement;
}

/** Most callers in one batch. */
const MAX_BATCH = 100;

/** Column of the batch statement's rows that says whose row it is (removed before rows are returned). */
const INDEX_COLUMN = "smcp_batch_index";

/**
 * Defines a batched read `name`: `sql` builds the statement's text from the SQL expressions of its
 * parameters (one per entry of `types`, the parameters' PostgreSQL types, e.g. "uuid").
 * Example: `batchedRead("get-profile", ["uuid"], ([id]) => \`select ... from users u where u.id = ${id}\`)`.
 */
export function batchedRead(
  name: string,
  types: readonly string[],
  sql: (params: string[]) => string,
): BatchedRead {
  const single = sql(types.map((type, i) => `$${i + 1}::${type}`));
  const columns = types.map((_, i) => `p${i + 1}`);
  const arrays = types.map((type, i) => `$${i + 2}::${type}[]`);
  const batch = `select batch_args.i as ${INDEX_COLUMN}, batch_rows.*
       from unnest($1::integer[], ${arrays.join(", ")}) as batch_args(i, ${columns.join(", ")})
       cross join lateral (${sql(columns.map((c) => `batch_args.${c}`))}) batch_rows`;
  return { name, single: statement(name, single), batch: statement(`${name}:batch`, batch) };
}

const batchers = new WeakMap<Knex, Map<string, Batcher<unknown[], unknown[]>>>();

/**
 * Runs the batch statement for the callers `params` (one parameter list each); one row list per caller.
 * Callers with the same parameters (primitive values) share one run of the statement and its rows.
 */
async function runBatch(db: Knex, read: BatchedRead, params: unknown[][]): Promise<unknown[][]> {
  const distinct = new Map<string, number>();
  const unique: unknown[][] = [];
  const slot = params.map((list) => {
    const key = list.map(String).join("\u0000");
    let index = distinct.get(key);
    if (index === undefined) {
      index = unique.push(list) - 1;
      distinct.set(key, index);
    }
    return index;
  });
  let rows: unknown[][];
  if (unique.length === 1) rows = [await runPrepared(db, read.single, unique[0] as unknown[])];
  else {
    const values: unknown[] = [unique.map((_, i) => i)];
    for (let p = 0; p < (unique[0]?.length ?? 0); p++) values.push(unique.map((list) => list[p]));
    rows = unique.map(() => []);
    for (const row of await runPrepared<Record<string, unknown>>(db, read.batch, values)) {
      const { [INDEX_COLUMN]: index, ...own } = row;
      rows[index as number]?.push(own);
    }
  }
  // The first caller of a parameter list gets its rows, later ones copies (a caller may change its rows).
  const given = new Set<number>();
  return slot.map((index) => {
    const own = rows[index] as Array<Record<string, unknown>>;
    if (!given.has(index)) {
      given.add(index);
      return own;
    }
    return own.map((row) => ({ ...row }));
  });
}

/**
 * Runs `read` with `values` ($1, $2, ... of its single form) on `db`'s pool, in one statement with the
 * other callers of the same read in this turn; on a transaction, alone on its connection.
 * @returns the rows of this caller. @throws the database's error (every caller of the batch gets it).
 */
export function runBatchedRead<R>(
  db: Knex | Knex.Transaction,
  read: BatchedRead,
  values: unknown[],
): Promise<R[]> {
  if ((db as Knex.Transaction).isTransaction) return runPrepared<R>(db, read.single, values);
  let reads = batchers.get(db);
  if (!reads) {
    reads = new Map();
    batchers.set(db, reads);
  }
  let batcher = reads.get(read.name);
  if (!batcher) {
    batcher = createBatcher((params) => runBatch(db, read, params), MAX_BATCH);
    reads.set(read.name, batcher);
  }
  return batcher.submit(values) as Promise<R[]>;
}
