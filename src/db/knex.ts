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
 * `asyncCommit` sets `synchronous_commit = off` on every connection of the pool: commits are visible to all
 * sessions at once but are not waited for on disk, so a crash of PostgreSQL itself may lose the last
 * fraction of a second of them (up to three times `wal_writer_delay`, 0.6 s by default). Only for data that
 * may be lost that way (the one-minute rate-limit counters: docs/operations.md); never for the main pool.
 * Dates are returned as JS Date; bigint counts (e.g. bytes) as numbers where safe (src/db/types.ts).
 */
export function createDb(databaseUrl: string, max = 10, options: { asyncCommit?: boolean } = {}): Knex {
  return knexFactory({
    client: "pg",
    connection: { connectionString: databaseUrl, application_name: "social-mcp" },
    pool: {
      min: 0,
      max,
      ...(options.asyncCommit
        ? {
            afterCreate: (
              conn: { query(sql: string, cb: (err: Error | null) => void): void },
              done: (err: Error | null, c: unknown) => void,
            ) => conn.query("set synchronous_commit = off", (err) => done(err, conn)),
          }
        : {}),
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
