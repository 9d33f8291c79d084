import assert from "node:assert/strict";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { resolveKeys } from "../../src/keys.ts";
import { createLogger } from "../../src/log.ts";

const log = createLogger("silent");

test("outside production, keys are generated once under DATA_DIR and kept across restarts", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "keys-"));
  const first = await resolveKeys(loadConfig({ DATA_DIR: dir }), log);
  const again = await resolveKeys(loadConfig({ DATA_DIR: dir }), log);
  assert.deepEqual(again, first);
  assert.equal(Buffer.from(first.encryptionKeys[0]!, "base64").length, 32);
  assert.equal(first.signingKeys[0]!.alg, "ES256");
  const file = path.join(dir, "keys.json");
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const text = await readFile(file, "utf8");
  assert.ok(!text.includes(first.signingKeys[0]!.d!), "the private signing key is not stored in plain text");
});

test("the signing keys file cannot be opened with another application key", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "keys-"));
  const key1 = Buffer.alloc(32, 1).toString("base64");
  const key2 = Buffer.alloc(32, 2).toString("base64");
  await resolveKeys(loadConfig({ DATA_DIR: dir, APP_ENCRYPTION_KEY: key1 }), log);
  await assert.rejects(
    resolveKeys(loadConfig({ DATA_DIR: dir, APP_ENCRYPTION_KEY: key2 }), log),
    (e: unknown) => e instanceof ConfigError && e.variable === "APP_ENCRYPTION_KEY",
  );
});

test("in production a missing key is a start-up error naming the variable", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "keys-"));
  await assert.rejects(
    resolveKeys(
      loadConfig({
        NODE_ENV: "production",
        AI_TEXT_PROVIDER: "local",
        AI_IMAGE_PROVIDER: "local",
        DATA_DIR: dir,
      }),
      log,
    ),
    (e: unknown) => e instanceof ConfigError && e.variable === "APP_ENCRYPTION_KEY",
  );
  await assert.rejects(
    resolveKeys(
      loadConfig({
        NODE_ENV: "production",
        AI_TEXT_PROVIDER: "local",
        AI_IMAGE_PROVIDER: "local",
        DATA_DIR: dir,
        APP_ENCRYPTION_KEY: Buffer.alloc(32).toString("base64"),
      }),
      log,
    ),
    (e: unknown) => e instanceof ConfigError && e.variable === "SIGNING_KEYS",
  );
});

test("SIGNING_KEYS must be a JWK set with private keys", async () => {
  const env = {
    NODE_ENV: "production",
    AI_TEXT_PROVIDER: "local",
    AI_IMAGE_PROVIDER: "local",
    APP_ENCRYPTION_KEY: Buffer.alloc(32).toString("base64"),
  };
  for (const value of ["not json", "[]", '{"keys":[{"kty":"EC","kid":"a"}]}']) {
    await assert.rejects(
      resolveKeys(loadConfig({ ...env, SIGNING_KEYS: value }), log),
      (e: unknown) => e instanceof ConfigError && e.variable === "SIGNING_KEYS",
    );
  }
});
