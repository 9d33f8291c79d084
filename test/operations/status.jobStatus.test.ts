/**
 * get_job_status visibility (service spec 2.5) and encryption at rest of operations (2.5, 2.6).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rowBinding } from "../../src/crypto/seal.ts";
import { startTestApp } from "../helpers/app.ts";
import { jobStatusTool, removeWidget } from "./fixtures.ts";
import { call, connection, key, useTools } from "./helpers.ts";

const app = await startTestApp({ env: { RATE_LIMIT_DELETE: "1000", RATE_LIMIT_READS: "1000" } });
const rt = useTools(app, [removeWidget, jobStatusTool]);
const owner = await app.user();
const stranger = await app.user();
const auth = await connection(app, owner, ["delete:products", "read:jobs"]);
const PRODUCT_NAME = "Plaintext canary 7f3a";
const [product] = await app.ctx
  .db("products")
  .insert({ user_id: owner.user_id, workspace_id: owner.workspace_id, name: PRODUCT_NAME })
  .returning("id");
const idempotencyKey = key();
const started = await call(rt, auth, "remove_widget", {
  idempotency_key: idempotencyKey,
  product_id: product.id,
});
const operationId = started.operation_id as string;

test("the creating connection polls its operation: data.status is the state", async () => {
  const env = await call(rt, auth, "get_job_status", { operation_id: operationId });
  assert.equal(env.status, "succeeded");
  assert.equal(env.error, undefined);
  assert.equal(env.data?.status, "approval_required");
  assert.equal(env.data?.operation_id, operationId);
  assert.equal(env.data?.tool, "remove_widget");
  assert.equal(typeof env.data?.approval_expires_at, "string");
  assert.equal(env.data?.result, undefined);
});

test("another connection of the same user, another user, or a token without the tool's scope -> not_found", async () => {
  const sibling = await connection(app, owner, ["delete:products", "read:jobs"]);
  const other = await connection(app, stranger, ["delete:products", "read:jobs"]);
  const narrow = { ...auth, scopes: new Set(["read:jobs"]) };
  for (const who of [sibling, other, narrow]) {
    const env = await call(rt, who, "get_job_status", { operation_id: operationId });
    assert.equal(env.error?.code, "not_found");
    assert.ok(!JSON.stringify(env).includes(PRODUCT_NAME));
  }
  const unknown = await call(rt, auth, "get_job_status", {
    operation_id: "00000000-0000-4000-8000-000000000000",
  });
  assert.equal(unknown.error?.code, "not_found");
});

test("operation rows hold no plaintext arguments or labels; sealed with a recorded key id", async () => {
  const row = await app.ctx.db("operations").where({ id: operationId }).first();
  const text = JSON.stringify(row);
  assert.ok(!text.includes(product.id), "the product id argument is not stored in plaintext");
  assert.ok(!text.includes(idempotencyKey), "the idempotency key is not stored in plaintext");
  assert.ok(!text.includes(PRODUCT_NAME), "the approval labels are sealed");
  assert.match(row.arguments_sealed, /^v2\.[0-9a-f]{8}\./);
  assert.equal(row.key_id, app.ctx.sealer.keyId);
  assert.deepEqual(
    app.ctx.sealer.open(row.arguments_sealed, rowBinding("operations", "arguments_sealed", row.id)),
    {
      idempotency_key: idempotencyKey,
      product_id: product.id,
    },
  );
});
