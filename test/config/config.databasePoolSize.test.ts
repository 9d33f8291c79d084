/**
 * `DATABASE_POOL_SIZE` (README "Configuration", docs/operations.md "The delivery loop"): connections of each
 * process's main pool, 10 by default, 2 to 200; a bad value is refused naming the variable.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { startTestApp } from "../helpers/app.ts";

test("DATABASE_POOL_SIZE: 10 by default, 2 to 200, refused by name otherwise", () => {
  assert.equal(loadConfig({}).databasePoolSize, 10);
  assert.equal(loadConfig({ DATABASE_POOL_SIZE: "24" }).databasePoolSize, 24);
  assert.equal(loadConfig({ DATABASE_POOL_SIZE: "200" }).databasePoolSize, 200);
  for (const bad of ["1", "201", "ten", "-5"])
    assert.throws(
      () => loadConfig({ DATABASE_POOL_SIZE: bad }),
      (e: unknown) => e instanceof ConfigError && e.variable === "DATABASE_POOL_SIZE",
      bad,
    );
  assert.throws(() => loadConfig({ DATABASE_POOL_SIZE: "1" }), /DATABASE_POOL_SIZE: must be >= 2/);
});

test("the main pool of a booted process has DATABASE_POOL_SIZE connections at most", async () => {
  const app = await startTestApp({ queue: false, env: { DATABASE_POOL_SIZE: "7" } });
  assert.equal((app.ctx.db.client as { config: { pool: { max: number } } }).config.pool.max, 7);
});
