/**
 * A throwaway database for a benchmark: created on the admin URL (`DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/postgres), migrated, booted with `env`; `close()` drops it.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { boot } from "../src/bootstrap.ts";
import type { AppContext } from "../src/context.ts";
import { createDb, migrate } from "../src/db/knex.ts";

/** Boots the service on a fresh database named `name_{pid}` with `env` (LOG_LEVEL silent, a temp DATA_DIR). */
export async function freshService(
  name: string,
  env: Record<string, string>,
): Promise<{ ctx: AppContext; close(): Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const db = `${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${db}`);
  const url = new URL(adminUrl);
  url.pathname = `/${db}`;
  const migrator = createDb(url.toString(), 2);
  await migrate(migrator);
  await migrator.destroy();
  const booted = await boot({
    env: {
      ...env,
      DATABASE_URL: url.toString(),
      LOG_LEVEL: "silent",
      DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "smcp-bench-")),
    },
    migrate: false,
  });
  return {
    ctx: booted.ctx,
    async close() {
      await booted.close();
      await admin.query(`drop database if exists ${db} with (force)`).catch(() => {});
      await admin.end();
    },
  };
}
