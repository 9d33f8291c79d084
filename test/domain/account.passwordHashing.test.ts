/**
 * Password hashing cost (src/domain/account/accounts.ts, `Config.passwordHash`): argon2id at the argon2
 * package's defaults (m=64 MiB, t=3, p=4) unless PASSWORD_HASH_* say otherwise, never below OWASP's minimum
 * (m=19 MiB, t=2, p=1); a stored hash keeps its own parameters, so changing the cost locks nobody out.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { createUser, verifyPassword } from "../../src/domain/account/accounts.ts";
import { freshDatabase } from "../helpers/db.ts";

const { db } = await freshDatabase();

async function storedHash(email: string): Promise<string> {
  const row = await db("users").where({ email }).first("password_hash");
  return row.password_hash as string;
}

test("by default a password is an argon2id hash at m=64 MiB, t=3, p=4, and the defaults are the config's", async () => {
  assert.deepEqual(loadConfig({}).passwordHash, { memoryCost: 65_536, timeCost: 3, parallelism: 4 });
  const ids = await createUser(db, {
    email: "default@example.test",
    password: "long enough secret",
    workspace: "W",
  });
  assert.match(await storedHash("default@example.test"), /^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
  assert.equal(await verifyPassword(db, "default@example.test", "long enough secret"), ids.user_id);
  assert.equal(await verifyPassword(db, "default@example.test", "not the secret"), undefined);
});

test("PASSWORD_HASH_* set the cost of new hashes; a hash made at another cost still verifies", async () => {
  const cheap = loadConfig({
    PASSWORD_HASH_MEMORY_KIB: "19456",
    PASSWORD_HASH_TIME_COST: "2",
    PASSWORD_HASH_PARALLELISM: "1",
  }).passwordHash;
  assert.deepEqual(cheap, { memoryCost: 19_456, timeCost: 2, parallelism: 1 });
  const ids = await createUser(
    db,
    { email: "cheap@example.test", password: "another secret", workspace: "W" },
    cheap,
  );
  assert.match(await storedHash("cheap@example.test"), /^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
  // Verified with the default cost configured: the stored parameters decide, not the configured ones.
  assert.equal(await verifyPassword(db, "cheap@example.test", "another secret"), ids.user_id);
  assert.equal(await verifyPassword(db, "nobody@example.test", "another secret", cheap), undefined);
});

for (const [variable, value, rule] of [
  ["PASSWORD_HASH_MEMORY_KIB", "19455", /minimum|>= 19456|19456/],
  ["PASSWORD_HASH_TIME_COST", "1", /minimum|>= 2|2/],
  ["PASSWORD_HASH_PARALLELISM", "0", /minimum|>= 1|1/],
  ["PASSWORD_HASH_PARALLELISM", "17", /maximum|<= 16|16/],
] as const) {
  test(`${variable}=${value} is refused, naming the variable and the limit`, () => {
    assert.throws(
      () => loadConfig({ [variable]: value }),
      (e: unknown) => e instanceof ConfigError && e.variable === variable && rule.test(e.message),
    );
  });
}
