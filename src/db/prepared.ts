/**
 * Named prepared statements on a knex pool, for the fixed statements of the /mcp hot path (the admission
 * statement, src/mcp/admission.ts; the token lookup, src/oauth/bearer.ts; the rate-limit counter; the audit
 * batch insert; get_profile). knex sends every query unnamed, so Postgres parses and plans it on each call;
 * for the token lookup (a four-table join) planning costs several times the execution (bench/README.md). A named statement is parsed once per pooled connection and then only bound and run.
 * The connection is borrowed from knex's own pool (as knex's own query runner does) and
 * returned at once, so the pool size and its limits are unchanged. Given a knex transaction, the statement
 * runs on the transaction's connection (knex's transaction client hands out that connection and its
 * release is a no-op), so it sees and joins the transaction's work.
 */
import type { Knex } from "./knex.ts";

/** A statement with a fixed name and text (the name must never be reused for another text). */
export interface Statement {
  name: string;
  text: string;
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface PoolClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): unknown;
}

/** Defines a statement; `name` gets a prefix of ours so that it cannot clash with a library's. */
export function statement(name: string, text: string): Statement {
  return { name: `smcp:${name}`, text };
}

/**
 * Runs `stmt` with `values` ($1, $2, ... in the text) on a connection of `db`'s pool, or on the
 * connection of `db` when it is a transaction.
 * @returns the rows, parsed with the process's pg type parsers (src/db/types.ts).
 * @throws the driver's error (the connection goes back to the pool either way).
 */
export async function runPrepared<R>(
  db: Knex | Knex.Transaction,
  stmt: Statement,
  values: unknown[],
): Promise<R[]> {
  const pool = db.client as unknown as PoolClient;
  const connection = await pool.acquireConnection();
  try {
    const { rows } = await connection.query({ name: stmt.name, text: stmt.text, values });
    return rows as R[];
  } finally {
    await pool.releaseConnection(connection);
  }
}
