/**
 * Knex connections and migrations. Migrations live in ../../migrations (append-only, service spec 1.12).
 */
import { fileURLToPath } from "node:url";
import knexFactory, { type Knex } from "knex";

export type { Knex };

/** Absolute path of the migrations folder. */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));

/**
 * Opens a pool on `databaseUrl`. `max` is the pool size (connections).
 * Every connection runs with `plan_cache_mode = force_generic_plan`: the named prepared statements of the
 * hot path (src/db/prepared.ts) are planned once per connection and then only executed. Left to choose,
 * PostgreSQL keeps re-planning a statement whose generic plan it estimates dearer than the custom plans
 * of its first five runs, as it does for every statement over an array of keys (`unnest($1::uuid[])`
 * estimates 10 rows against the custom plans' actual 1): planning the four-table token lookup costs
 * about 1 ms, several times its execution. Our statements are written for their generic plans (index
 * lookups per key, bench/README.md); knex's own queries are unnamed and unaffected.
 * `asyncCommit` also sets `synchronous_commit = off`: commits are visible to all sessions at once but are
 * not waited for on disk, so a crash of PostgreSQL itself may lose the last fraction of a second of them
 * (up to three times `wal_writer_delay`, 0.6 s by default). Only for data that may be lost that way (the
 * one-minute rate-limit counters: docs/operations.md); never for the main pool, which sets
 * `synchronous_commit = on` itself, so that the durability its approvals, idempotency records and saved
 * network ids rely on does not depend on the server's or the database's default.
 * Dates are returned as JS Date; bigint counts (e.g. bytes) as numbers where safe (src/db/types.ts).
 */
export function createDb(databaseUrl: string, max = 10, options: { asyncCommit?: boolean } = {}): Knex {
  const settings = [
    "set plan_cache_mode = force_generic_plan",
    `set synchronous_commit = ${options.asyncCommit ? "off" : "on"}`,
  ].join("; ");
  return knexFactory({
    client: "pg",
    connection: { connectionString: databaseUrl, application_name: "social-mcp" },
    pool: {
      min: 0,
      max,
      afterCreate: (
        conn: { query(sql: string, cb: (err: Error | null) => void): void },
        done: (err: Error | null, c: unknown) => void,
      ) => conn.query(settings, (err) => done(err, conn)),
    },
    migrations: { directory: MIGRATIONS_DIR, loadExtensions: [".ts"], tableName: "knex_migrations" },
    // knex prints pool warnings with error messages to the console; every failure reaches its caller as
    // an exception anyway, where the service decides what to log (src/log.ts redaction rules).
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
  });
}

/** Applies all pending migrations. Returns the names applied. */
export async function migrate(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}
