import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { freshDatabase } from "../helpers/db.ts";

const { url, db } = await freshDatabase();
const dataDir = await mkdtemp(path.join(os.tmpdir(), "cli-"));

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ["src/main.ts", ...args], {
    env: { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

test("`admin user create` prints one line of JSON and the user exists in the database", () => {
  const r = cli([
    "admin",
    "user",
    "create",
    "--email",
    "cli@example.test",
    "--password",
    "long enough pw",
    "--workspace",
    "CLI",
  ]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  assert.equal(lines.length, 1);
  const out = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(out).sort(), ["user_id", "workspace_id"]);
  return db("users")
    .where({ id: out.user_id })
    .first()
    .then((u) => assert.equal(u.email, "cli@example.test"));
});

test("errors are one clear line on stderr and a non-zero exit", () => {
  const r = cli(["admin", "user", "create", "--email", "x@example.test"]);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /^social-mcp: missing --password/);
  const bad = cli(["admin", "user", "create"], { PORT: "not-a-port" });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /^social-mcp: configuration error: PORT: /);
  const unknown = cli(["frobnicate"]);
  assert.notEqual(unknown.status, 0);
  assert.match(unknown.stderr, /^social-mcp: unknown command "frobnicate"/);
});
