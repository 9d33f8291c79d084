/**
 * A fresh database per test file, cloned from the migrated template that test/run.ts prepares.
 * Dropped when the file's tests finish.
 */
import { randomBytes } from "node:crypto";
import { after } from "node:test";
import pg from "pg";
import "../../src/db/types.ts";
import { createDb, type Knex, migrate } from "../../src/db/knex.ts";

export interface TestDatabase {
  url: string;
  db: Knex;
  /** Closes the pool and drops the database (idempotent). */
  drop(): Promise<void>;
}

/**
 * Creates `t_<random>` from the template (or migrates from scratch when run outside test/run.ts).
 * By default it is dropped after the file's tests; `autoDrop: false` leaves that to the caller's `drop()`.
 */
export async function freshDatabase(options: { autoDrop?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl =
    process.env.TEST_ADMIN_DATABASE_URL ??
    process.env.DATABASE_URL ??
    "postgres://postgres@127.0.0.1:5432/postgres";
  const template = process.env.TEST_TEMPLATE_DATABASE;
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // The clone's strategy is test/run.ts's choice for the server (TEST_TEMPLATE_STRATEGY: FILE_COPY on
  // PostgreSQL 15 and later, docs/testing.md), made once per run.
  const strategy = process.env.TEST_TEMPLATE_STRATEGY
    ? ` strategy ${process.env.TEST_TEMPLATE_STRATEGY}`
    : "";
  await admin.query(
    template ? `create database ${name} template ${template}${strategy}` : `create database ${name}`,
  );
  // Nothing of a test database outlives its file: commits need not wait for the disk (docs/testing.md). The
  // service's main pool still commits synchronously: it sets that itself (src/db/knex.ts).
  await admin.query(`alter database ${name} set synchronous_commit = off`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), 10);
  if (!template) await migrate(db);
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await db.destroy();
    const a = new pg.Client({ connectionString: adminUrl });
    await a.connect();
    await a.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await a.end();
  };
  if (options.autoDrop !== false) after(drop);
  return { url: url.toString(), db, drop };
}
