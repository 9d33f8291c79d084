/**
 * The up-front check before the embedded PostgreSQL starts as root: the `postgres` user must be able to
 * enter every parent of the cluster directory, else one line names the directory and the fixes.
 */
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { embeddedDirProblem, postgresUserIds, startEmbeddedPostgres } from "../../src/db/embedded.ts";

const PG = { uid: 4242, gid: 4242 };

test("a parent the postgres user cannot enter is named with the fix, in one line", async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), "pgperm-"));
  await chmod(root, 0o755);
  const home = path.join(root, "home");
  await mkdir(path.join(home, "app", ".data"), { recursive: true });
  await chmod(home, 0o700);
  const problem = embeddedDirProblem(path.join(home, "app", ".data", "postgres"), PG);
  assert.ok(problem);
  assert.equal(problem.split("\n").length, 1);
  assert.match(problem, new RegExp(`cannot enter ${home} \\(mode 700\\)`));
  assert.match(problem, /chmod o\+x/);
  assert.match(problem, /DATA_DIR/);
  assert.match(problem, /DATABASE_URL/);

  await chmod(home, 0o711);
  assert.equal(embeddedDirProblem(path.join(home, "app", ".data", "postgres"), PG), undefined);
});

test("owner or group permissions of the postgres user count; missing parents are skipped", async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), "pgperm-"));
  await chmod(root, 0o755);
  const dir = path.join(root, "d");
  await mkdir(dir);
  await chmod(dir, 0o710);
  const { gid } = await import("node:fs").then((fs) => fs.statSync(dir));
  assert.ok(embeddedDirProblem(path.join(dir, "postgres"), PG), "root's group is not the postgres group");
  assert.equal(embeddedDirProblem(path.join(dir, "postgres"), { uid: 4242, gid }), undefined);
  assert.equal(embeddedDirProblem(path.join(root, "not", "yet", "there", "postgres"), PG), undefined);
});

test("the postgres user's ids are read from passwd", async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), "pgperm-"));
  const passwd = path.join(root, "passwd");
  await writeFile(
    passwd,
    "root:x:0:0:root:/root:/bin/bash\npostgres:x:105:109::/var/lib/postgresql:/bin/sh\n",
  );
  assert.deepEqual(postgresUserIds(passwd), { uid: 105, gid: 109 });
  await writeFile(passwd, "root:x:0:0:root:/root:/bin/bash\n");
  assert.equal(postgresUserIds(passwd), undefined);
});

test("as root, startEmbeddedPostgres refuses an unreachable data directory before initdb", {
  skip: process.getuid?.() !== 0 ? "needs root" : false,
}, async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), "pgperm-"));
  await chmod(root, 0o755);
  const locked = path.join(root, "locked");
  await mkdir(locked);
  await chmod(locked, 0o700);
  await assert.rejects(startEmbeddedPostgres(path.join(locked, ".data"), 54999), (err: Error) => {
    assert.match(err.message, new RegExp(`cannot enter ${locked} \\(mode 700\\); fix the data directory`));
    return true;
  });
});
