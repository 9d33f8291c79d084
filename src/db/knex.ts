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
 * Dates are returned as JS Date; bigint counts (e.g. bytes) as numbers where safe (see pg type parser below).
 */
export function createDb(databaseUrl: string, max = 10): Knex {
  return knexFactory({
    client: "pg",
    connection: { connectionString: databaseUrl, application_name: "social-mcp" },
    pool: { min: 0, max },
    migrations: { directory: MIGRATIONS_DIR, loadExtensions: [".ts"], tableName: "knex_migrations" },
  });
}

/** Applies all pending migrations. Returns the names applied. */
export async function migrate(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}
