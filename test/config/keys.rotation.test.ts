/**
 * Application key rotation (src/crypto/seal.ts, src/cli/keys.ts, README "Rotating the application key"):
 * APP_ENCRYPTION_KEYS lists keys newest first with ids; the newest seals, every listed key opens; each
 * value is bound to its row (AES-GCM additional data `table:column:id`), so a value copied elsewhere does
 * not open; `admin keys reseal` re-seals every sealed column with the newest key, also the v1 values
 * sealed before bindings existed, after which the old key can be dropped.
 */
import assert from "node:assert/strict";
import { createCipheriv, randomBytes, randomUUID } from "node:crypto";
import { test } from "node:test";
import { TOOLS } from "../../generated/registry.ts";
import { runAdmin } from "../../src/cli/admin.ts";
import { PRIMARY_KEYS } from "../../src/cli/keys.ts";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import {
  createSealer,
  keyHashId,
  rowBinding,
  SEALED_COLUMNS,
  type SealedTable,
  type Sealer,
} from "../../src/crypto/seal.ts";
import { openAccount } from "../../src/domain/social/accounts.ts";
import { startConnect } from "../../src/domain/social/connect.ts";
import { callTool, createRuntime } from "../../src/runtime/pipeline.ts";
import { handler as generateHandler } from "../../src/tools/carousels/generate_carousel.ts";
import { startTestApp } from "../helpers/app.ts";
import { connection } from "../operations/helpers.ts";
import { account, product, textPost, toolContext } from "../tools/carousels/fixtures.ts";

const k1 = randomBytes(32).toString("base64");
const k2 = randomBytes(32).toString("base64");

/** A value as the service sealed it before bindings existed: v1, no additional data, the key's hash id. */
function legacySeal(keyBase64: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(keyBase64, "base64"), iv);
  const ct = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  return ["v1", keyHashId(keyBase64), iv, ct, cipher.getAuthTag()]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

test("APP_ENCRYPTION_KEYS: ids and keys, newest first; one of the two variables; 32-byte keys, distinct ids", () => {
  const c = loadConfig({ APP_ENCRYPTION_KEYS: `k2:${k2}, k1:${k1}` });
  assert.deepEqual(c.appEncryptionKeys, [
    { id: "k2", key: k2 },
    { id: "k1", key: k1 },
  ]);
  assert.deepEqual(loadConfig({ APP_ENCRYPTION_KEY: k1 }).appEncryptionKeys, [
    { id: keyHashId(k1), key: k1 },
  ]);
  const refused = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e.message;
    }
    return "accepted";
  };
  assert.match(refused({ APP_ENCRYPTION_KEYS: `k1:${k1}`, APP_ENCRYPTION_KEY: k1 }), /either .* not both/);
  assert.match(refused({ APP_ENCRYPTION_KEYS: `a:${k1},a:${k2}` }), /key id a is listed twice/);
  assert.match(
    refused({ APP_ENCRYPTION_KEYS: `a:${Buffer.alloc(31).toString("base64")}` }),
    /^APP_ENCRYPTION_KEYS:/,
  );
  assert.match(refused({ APP_ENCRYPTION_KEYS: k1 }), /^APP_ENCRYPTION_KEYS: invalid value/);
});

test("the newest key seals, every listed key opens; a value opens only for the row, column and table it was sealed for", () => {
  const old = createSealer([{ id: "k1", key: k1 }]);
  const rotated = createSealer([
    { id: "k2", key: k2 },
    { id: "k1", key: k1 },
  ]);
  const here = rowBinding("social_accounts", "access_token_sealed", "a1");
  const sealedOld = old.seal("token", here);
  assert.match(sealedOld, /^v2\.k1\./);
  const sealedNew = rotated.seal("token", here);
  assert.match(sealedNew, /^v2\.k2\./);
  assert.equal(rotated.keyId, "k2");
  assert.equal(rotated.open(sealedOld, here), "token", "an older key still opens");
  assert.throws(() => old.open(sealedNew, here), /unknown format or key/);
  for (const elsewhere of [
    rowBinding("social_accounts", "access_token_sealed", "a2"),
    rowBinding("social_accounts", "refresh_token_sealed", "a1"),
    rowBinding("operations", "arguments_sealed", "a1"),
    { purpose: "sandbox-token" } as const,
  ])
    assert.throws(
      () => rotated.open(sealedNew, elsewhere),
      /unsupported state or unable to authenticate data/i,
    );
  // Sealed while the key was the single APP_ENCRYPTION_KEY (its hash id), opened once it is listed with an id.
  const single = createSealer([k1]);
  assert.equal(rotated.open(single.seal("t", here), here), "t");
  // Sealed before bindings existed: still opens (until `admin keys reseal`), whatever the binding.
  assert.deepEqual(rotated.open(legacySeal(k1, { a: 1 }), here), { a: 1 });
});

test("a sealed token copied into another account's row does not open there", async () => {
  const app = await startTestApp({ queue: false, env: { APP_ENCRYPTION_KEYS: `k1:${k1}` } });
  const me = await app.user();
  const a = await account(app, me, "facebook", "Page A");
  const b = await account(app, me, "x", "Account B");
  const rowA = await app.ctx.db("social_accounts").where({ id: a }).first();
  await app.ctx
    .db("social_accounts")
    .where({ id: b })
    .update({ access_token_sealed: rowA.access_token_sealed });
  await assert.rejects(openAccount(app.ctx.db, app.ctx.sealer, b), /unable to authenticate data/i);
  assert.ok((await openAccount(app.ctx.db, app.ctx.sealer, a)).tokens.accessToken);
  await app.close();
});

/** Every sealed value in the database with its binding. */
async function sealedValues(app: { ctx: { db: any } }) {
  const keys = PRIMARY_KEYS;
  const out: Array<{ where: string; sealed: string; binding: ReturnType<typeof rowBinding> }> = [];
  for (const table of Object.keys(SEALED_COLUMNS) as SealedTable[])
    for (const column of SEALED_COLUMNS[table]) {
      const rows = await app.ctx
        .db(table)
        .whereNotNull(column)
        .select([...keys[table], column]);
      for (const r of rows) {
        const id = keys[table].map((k) => String(r[k])).join("/");
        out.push({
          where: `${table}.${column}`,
          sealed: r[column],
          binding: rowBinding(table, column as never, id),
        });
      }
    }
  return out;
}

test("reseal after rotation: every sealed column is re-sealed with the newest key, old and legacy values alike", async () => {
  const app = await startTestApp({ queue: false, env: { APP_ENCRYPTION_KEYS: `k1:${k1}` } });
  const me = await app.user({ plan: "pro" });
  // Values in every sealed table, written by the service with k1.
  const fb = await account(app, me, "facebook"); // social_accounts tokens
  const rt = createRuntime(app.ctx, TOOLS);
  const auth = await connection(app, me, ["create:content", "publish:content"]);
  const options = { signal: new AbortController().signal, progress: () => {} };
  await callTool(
    rt,
    auth,
    "create_text_post",
    { caption: "k1", status: "draft", idempotency_key: randomUUID() },
    options,
  );
  const published = await callTool(
    rt,
    auth,
    "publish_post",
    {
      post_id: await textPost(app, me, "to publish"),
      social_account_ids: [fb],
      idempotency_key: randomUUID(),
    },
    options,
  ); // an operation (arguments, description) and its idempotency record
  assert.equal(published.kind === "result" && published.envelope.status, "approval_required");
  const productId = await product(app, me);
  await app.ctx.db.transaction((trx) =>
    generateHandler.accept!(
      {
        product_id: productId,
        slide_count: 4,
        design_id: "bold-minimal",
        prompt: "sunny",
        idempotency_key: randomUUID(),
      },
      toolContext(app, me, trx, randomUUID()),
    ),
  ); // carousel run brief, slide prompts
  await startConnect(app.ctx, {
    sessionHash: "s".repeat(64),
    userId: me.user_id,
    workspaceId: me.workspace_id,
    network: "x",
  });
  // And one value sealed before bindings existed (v1, no additional data).
  const [state] = await app.ctx.db("social_connect_states").where({ user_id: me.user_id }).select("id");
  await app.ctx
    .db("social_connect_states")
    .where({ id: state.id })
    .update({ pending_accounts_sealed: legacySeal(k1, { accounts: [] }) });

  const before = await sealedValues(app);
  const where = new Set(before.map((v) => v.where));
  for (const table of Object.keys(SEALED_COLUMNS) as SealedTable[])
    assert.ok(
      [...where].some((w) => w.startsWith(`${table}.`)),
      `a sealed value in ${table}: ${[...where]}`,
    );
  assert.ok(before.length >= 12, String(before.length));
  const onlyK2 = createSealer([{ id: "k2", key: k2 }]);
  assert.ok(
    before.every((v) => !opens(onlyK2, v)),
    "the new key alone opens nothing yet",
  );

  // Rotation: k2 first, k1 still listed; reseal.
  const rotated = createSealer([
    { id: "k2", key: k2 },
    { id: "k1", key: k1 },
  ]);
  const report = (await runAdmin(app.ctx.db, ["keys", "reseal"], { ...app.ctx, sealer: rotated })) as {
    key_id: string;
    resealed: Record<string, number>;
    unreadable_count: number;
  };
  assert.equal(report.key_id, "k2");
  assert.equal(report.unreadable_count, 0);
  assert.equal(
    Object.values(report.resealed).reduce((a, b) => a + b, 0),
    before.length,
  );
  const after = await sealedValues(app);
  assert.equal(after.length, before.length);
  for (const v of after) {
    assert.match(v.sealed, /^v2\.k2\./, v.where);
    assert.ok(opens(onlyK2, v), `${v.where} opens with k2 alone`);
  }
  const op = await app.ctx.db("operations").first("key_id");
  assert.equal(op.key_id, "k2");
  // A second run has nothing left to do.
  const again = (await runAdmin(app.ctx.db, ["keys", "reseal"], { ...app.ctx, sealer: rotated })) as {
    resealed: Record<string, number>;
    current: number;
  };
  assert.equal(
    Object.values(again.resealed).reduce((a, b) => a + b, 0),
    0,
  );
  assert.equal(again.current, before.length);
  await app.close();
});

function opens(sealer: Sealer, v: { sealed: string; binding: ReturnType<typeof rowBinding> }): boolean {
  try {
    sealer.open(v.sealed, v.binding);
    return true;
  } catch {
    return false;
  }
}
