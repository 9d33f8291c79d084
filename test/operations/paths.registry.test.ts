/**
 * The review and queued paths with the real tools of the generated registry and the default worker lookup:
 * `delete_product` (review) and `fetch_product_details` (queued, guarded fetch of a local page), plus the
 * settings page data (`listRequestsForUser`).
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { TOOLS } from "../../generated/registry.ts";
import { decideOperation } from "../../src/operations/approvals.ts";
import { listRequestsForUser } from "../../src/operations/requests.ts";
import { createRuntime } from "../../src/runtime/pipeline.ts";
import { startTestApp } from "../helpers/app.ts";
import { call, connection, key, stateOf, waitFor } from "./helpers.ts";

const site = http.createServer((_req, res) => {
  res.setHeader("content-type", "text/html; charset=utf-8");
  res.end(
    `<!doctype html><html><head><title>Oak Desk</title><meta property="og:title" content="Oak Desk">` +
      `<meta property="og:description" content="A solid oak desk."></head><body><h1>Oak Desk</h1></body></html>`,
  );
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
after(() => new Promise<void>((resolve) => site.close(() => resolve())));
const sitePort = (site.address() as AddressInfo).port;

const app = await startTestApp({
  worker: true,
  env: {
    FETCH_ALLOW_LOOPBACK_PORT: String(sitePort),
    RATE_LIMIT_AI: "1000",
    RATE_LIMIT_DELETE: "1000",
    RATE_LIMIT_READS: "1000",
  },
});
const rt = createRuntime(app.ctx, TOOLS);
const owner = await app.user();
const auth = await connection(app, owner, [
  "read:products",
  "create:products",
  "delete:products",
  "read:jobs",
]);

test("delete_product: approval_required, approved by the owner, executed once by the worker", async () => {
  const [p] = await app.ctx
    .db("products")
    .insert({ user_id: owner.user_id, workspace_id: owner.workspace_id, name: "Walnut lamp" })
    .returning("id");
  const env = await call(rt, auth, "delete_product", { product_id: p.id, idempotency_key: key() });
  assert.equal(env.status, "approval_required", JSON.stringify(env));
  const id = env.operation_id as string;
  const listed = await listRequestsForUser(app.ctx, owner.user_id);
  const mine = listed.find((c) => c.grant_id === auth.grantId);
  assert.ok(
    mine?.pending.some(
      (r) => r.operation_id === id && r.state === "approval_required" && r.summary?.includes("Walnut lamp"),
    ),
  );
  assert.equal(mine?.client_name, "test client");
  assert.equal((await decideOperation(app.ctx, id, owner.user_id, "approve")).kind, "approved");
  await waitFor(
    () => stateOf(app.ctx, id),
    (s) => s === "succeeded" || s === "failed",
  );
  const status = await call(rt, auth, "get_job_status", { operation_id: id });
  assert.equal(status.data?.status, "succeeded", JSON.stringify(status));
  assert.equal(status.error, undefined);
  const row = await app.ctx.db("products").where({ id: p.id }).first("deleted_at");
  assert.ok(row.deleted_at);
  const after = await listRequestsForUser(app.ctx, owner.user_id);
  const recent = after.find((c) => c.grant_id === auth.grantId)?.recent ?? [];
  assert.ok(recent.some((r) => r.operation_id === id && r.state === "succeeded"));
});

test("fetch_product_details: accept inline -> queued with data; the worker fetches -> succeeded with a result", async () => {
  const env = await call(rt, auth, "fetch_product_details", {
    product_url: `http://127.0.0.1:${sitePort}/oak-desk`,
    idempotency_key: key(),
  });
  assert.equal(env.status, "queued", JSON.stringify(env));
  assert.equal(env.data?.url, `http://127.0.0.1:${sitePort}/oak-desk`);
  const id = env.operation_id as string;
  await waitFor(
    () => stateOf(app.ctx, id),
    (s) => s !== "queued" && s !== "running",
  );
  const status = await call(rt, auth, "get_job_status", { operation_id: id });
  assert.equal(status.data?.status, "succeeded", JSON.stringify(status));
  assert.ok(JSON.stringify(status.data?.result).includes("Oak Desk"));
});
