/**
 * The run's databases in memory (test/tablespace.ts): on a machine whose PostgreSQL runs here and can be
 * given a folder (CI's: root and the server's `postgres` user), a tablespace under /dev/shm that a database
 * created in it keeps its files in, dropped with its databases and folder; the tablespaces of runs whose
 * process is gone are dropped by the next run; a remote server or TEST_TABLESPACE=off keeps the default.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statfsSync, statSync } from "node:fs";
import { mkdtemp, rm, chown } from "node:fs/promises";
import { after, test } from "node:test";
import pg from "pg";
import { memoryTablespace } from "../tablespace.ts";

const adminUrl =
  process.env.TEST_ADMIN_DATABASE_URL ??
  process.env.DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/postgres";
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
after(() => admin.end());

const dataDir = (await admin.query("select current_setting('data_directory') as d")).rows[0].d as string;
const serverUid = statSync(dataDir).uid;
/** What test/tablespace.ts needs of this machine: 1 GiB free in /dev/shm, and the folder can be the server's. */
const shmFree = () => {
  const fs = statfsSync("/dev/shm");
  return fs.bavail * fs.bsize;
};
const possible =
  process.platform === "linux" &&
  existsSync("/dev/shm") &&
  shmFree() >= 1024 ** 3 &&
  [serverUid, 0].includes(process.getuid?.() ?? -1);

test("a tablespace under /dev/shm holds a database's files, and drop() removes its databases and folder", async () => {
  const ts = await memoryTablespace(admin, adminUrl);
  if (!possible) {
    assert.equal(ts, undefined, "no folder the server could be given: the default tablespace");
    return;
  }
  assert.ok(ts, "this machine can give its server a folder in memory");
  assert.equal(ts.name, `smcp_test_${process.pid}`);
  assert.ok(ts.dir.startsWith("/dev/shm/smcp-test-pg-"), ts.dir);
  assert.equal(statSync(ts.dir).uid, serverUid, "the folder is the server's");
  const location = await admin.query(
    "select pg_tablespace_location(oid) as l from pg_tablespace where spcname = $1",
    [ts.name],
  );
  assert.equal(location.rows[0].l, ts.dir);
  const db = `tsx_${process.pid}`;
  await admin.query(`create database ${db} tablespace "${ts.name}"`);
  // PostgreSQL keeps the database's files in <folder>/PG_<version>_<catalog>/<database oid>/.
  const oid = (await admin.query("select oid from pg_database where datname = $1", [db])).rows[0].oid;
  const [versionDir] = readdirSync(ts.dir);
  assert.ok(versionDir?.startsWith("PG_"), `${readdirSync(ts.dir)}`);
  assert.ok(readdirSync(`${ts.dir}/${versionDir}/${oid}`).length > 100, "the catalogs' files are in memory");

  await ts.drop();
  assert.equal((await admin.query("select 1 from pg_database where datname = $1", [db])).rowCount, 0);
  assert.equal((await admin.query("select 1 from pg_tablespace where spcname = $1", [ts.name])).rowCount, 0);
  assert.equal(existsSync(ts.dir), false, "the folder is removed");
});

test("the tablespace of a run whose process is gone is dropped with its databases by the next run", async (t) => {
  if (!possible) return t.skip("this machine cannot give its server a folder in memory");
  // A pid that was alive a moment ago and is gone now.
  const gone = spawnSync(process.execPath, [
    "-e",
    "process.stdout.write(String(process.pid))",
  ]).stdout.toString();
  const name = `smcp_test_${gone}`;
  const dir = await mkdtemp("/dev/shm/smcp-test-pg-gone-");
  after(() => rm(dir, { recursive: true, force: true }));
  await chown(dir, serverUid, statSync(dataDir).gid);
  await admin.query(`create tablespace "${name}" location '${dir}'`);
  await admin.query(`create database tsgone_${gone} tablespace "${name}"`);

  const ts = await memoryTablespace(admin, adminUrl);
  assert.ok(ts);
  await ts.drop();
  assert.equal((await admin.query("select 1 from pg_tablespace where spcname = $1", [name])).rowCount, 0);
  assert.equal((await admin.query(`select 1 from pg_database where datname = 'tsgone_${gone}'`)).rowCount, 0);
  assert.equal(existsSync(dir), false, "its folder is removed");
  // A live run's tablespace is left alone: the one test/run.ts made for this run still holds its template.
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (template) {
    const live = await admin.query(
      "select t.spcname from pg_database d join pg_tablespace t on t.oid = d.dattablespace where d.datname = $1",
      [template],
    );
    const runnerPid = template.replace("smcp_template_", "");
    assert.equal(
      live.rows[0]?.spcname,
      `smcp_test_${runnerPid}`,
      "the runner's tablespace, named by its pid",
    );
  }
});

test("TEST_TABLESPACE=off and a server on another machine keep the default tablespace", async () => {
  const saved = process.env.TEST_TABLESPACE;
  process.env.TEST_TABLESPACE = "off";
  try {
    assert.equal(await memoryTablespace(admin, adminUrl), undefined);
  } finally {
    if (saved === undefined) delete process.env.TEST_TABLESPACE;
    else process.env.TEST_TABLESPACE = saved;
  }
  const remote = new URL(adminUrl);
  remote.hostname = "db.example.test";
  assert.equal(await memoryTablespace(admin, remote.toString()), undefined);
  assert.equal(
    (
      await admin.query("select count(*)::int as n from pg_tablespace where spcname = $1", [
        `smcp_test_${process.pid}`,
      ])
    ).rows[0].n,
    0,
    "nothing was created",
  );
});
