/**
 * Idempotency through the real pipeline, real Postgres and real pg-boss workers (service spec 2.6, 4.2
 * rule 2, 7 rule 1).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import { ToolError } from "../../src/errors.ts";
import type { Runtime } from "../../src/runtime/pipeline.ts";
import type { AuthContext } from "../../src/tool-contract.ts";
import { decideOperation } from "../../src/operations/approvals.ts";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { removeWidget, runs } from "./fixtures.ts";
import { call, connection, key, makeTool, stateOf, useTools, waitFor, type Who } from "./helpers.ts";

let executions = 0;

const createThing = makeTool({
  name: "create_thing",
  scope: "create:products",
  queued: true,
  properties: { name: { type: "string", maxLength: 100 }, fail: { type: "boolean" } },
  required: ["name"],
  handler: {
    async accept(input, ctx) {
      if (input.fail) throw new ToolError("validation_failed", "asked to fail");
      const [row] = await ctx
        .db("products")
        .insert({ user_id: ctx.auth.userId, workspace_id: ctx.auth.workspaceId, name: input.name })
        .returning("id");
      return { data: { product_id: row.id } };
    },
    async execute(_input, ctx, accepted) {
      executions += 1;
      if (!accepted) throw new Error("execute of a queued tool always gets what accept returned");
      await ctx.db("products").where({ id: accepted.product_id }).update({ description: "processed" });
      return { data: { product_id: accepted.product_id, processed: true } };
    },
  },
});

/** Inline: `crash` throws an unexpected error, `limit` a rate_limited ToolError, `ok` creates the product. */
const flakyThing = makeTool({
  name: "flaky_thing",
  scope: "create:products",
  properties: { name: { type: "string", maxLength: 100 }, mode: { enum: ["crash", "limit", "ok"] } },
  required: ["name", "mode"],
  handler: {
    async execute(input, ctx) {
      await ctx
        .db("products")
        .insert({ user_id: ctx.auth.userId, workspace_id: ctx.auth.workspaceId, name: input.name });
      if (input.mode === "crash") throw new Error("boom");
      if (input.mode === "limit") throw new ToolError("rate_limited", "slow down", undefined, 3);
      return { data: {} };
    },
  },
});

const app: TestApp = await startTestApp({ worker: true, env: { RATE_LIMIT_WRITES: "1000" } });
const rt: Runtime = useTools(app, [createThing, flakyThing, removeWidget]);
const owner: Who = await app.user();
const auth: AuthContext = await connection(app, owner, ["create:products", "delete:products", "read:jobs"]);

const products = (name: string) =>
  app.ctx.db("products").where({ name }).count<{ count: string }[]>({ count: "*" });

describe("runIdempotent", () => {
  test("20 concurrent identical calls with one key make one operation and one effect", async () => {
    const k = key();
    const envelopes = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(rt, auth, "create_thing", { idempotency_key: k, name: "Concurrent lamp" }),
      ),
    );
    const ids = new Set(envelopes.map((e) => e.operation_id));
    assert.equal(ids.size, 1, "every duplicate answers with the same operation_id");
    for (const e of envelopes) {
      assert.equal(e.error, undefined);
      assert.equal(e.status, "queued");
    }
    const [opId] = [...ids];
    assert.ok(opId);
    assert.equal(Number((await products("Concurrent lamp"))[0]?.count), 1, "accept ran once");
    const ops = await app.ctx
      .db("operations")
      .where({ grant_id: auth.grantId, tool: "create_thing" })
      .whereIn("id", [opId]);
    assert.equal(ops.length, 1);
    const before = executions;
    await waitFor(
      () => stateOf(app.ctx, opId),
      (s) => s === "succeeded",
    );
    // Replays after the run still answer with the first envelope and run nothing again.
    const again = await call(rt, auth, "create_thing", { idempotency_key: k, name: "Concurrent lamp" });
    assert.equal(again.operation_id, opId);
    assert.equal(again.request_id, envelopes[0]?.request_id);
    assert.equal(Number((await products("Concurrent lamp"))[0]?.count), 1);
    assert.ok(executions - before <= 1, "the handler ran at most once after the burst");
    const row = await app.ctx.db("operations").where({ id: opId }).first();
    assert.equal(row.attempts, 1, "claimed exactly once");
  });

  test("same key with other arguments is idempotency_conflict; key order does not matter", async () => {
    const k = key();
    const first = await call(rt, auth, "create_thing", { idempotency_key: k, name: "Blue vase" });
    assert.equal(first.status, "queued");
    const conflict = await call(rt, auth, "create_thing", { idempotency_key: k, name: "Red vase" });
    assert.equal(conflict.error?.code, "idempotency_conflict");
    const reordered = await call(rt, auth, "create_thing", { name: "Blue vase", idempotency_key: k });
    assert.equal(reordered.operation_id, first.operation_id);
    assert.equal(Number((await products("Red vase"))[0]?.count), 0);
  });

  test("a new connection is a new namespace", async () => {
    const k = key();
    const a = await call(rt, auth, "create_thing", { idempotency_key: k, name: "Namespace chair" });
    const other = await connection(app, owner, ["create:products", "read:jobs"]);
    const b = await call(rt, other, "create_thing", { idempotency_key: k, name: "Namespace chair" });
    assert.ok(a.operation_id && b.operation_id);
    assert.notEqual(a.operation_id, b.operation_id);
    assert.equal(Number((await products("Namespace chair"))[0]?.count), 2);
  });

  test("a failed first call keeps its outcome: the same error again, other arguments are a conflict", async () => {
    const k = key();
    const failed = await call(rt, auth, "create_thing", { idempotency_key: k, name: "Kept", fail: true });
    assert.equal(failed.error?.code, "validation_failed");
    const again = await call(rt, auth, "create_thing", { idempotency_key: k, name: "Kept", fail: true });
    assert.deepEqual(again, failed, "the exact retry answers the first call's error envelope");
    const other = await call(rt, auth, "create_thing", { idempotency_key: k, name: "Kept" });
    assert.equal(other.error?.code, "idempotency_conflict", "the failed call holds its key");
    assert.equal(Number((await products("Kept"))[0]?.count), 0, "the failed effect was rolled back");
    const records = await app.ctx
      .db("idempotency_records")
      .where({ grant_id: auth.grantId, tool: "create_thing" });
    assert.ok(
      records.every((r) => r.state === "done"),
      "no record is left in flight",
    );
  });

  test("internal errors and rate limits are not kept: the same key may be used again", async () => {
    const k = key();
    const broken = await call(rt, auth, "flaky_thing", { idempotency_key: k, name: "Flaky", mode: "crash" });
    assert.equal(broken.error?.code, "internal_error");
    const limited = await call(rt, auth, "flaky_thing", { idempotency_key: k, name: "Flaky", mode: "limit" });
    assert.equal(limited.error?.code, "rate_limited");
    const ok = await call(rt, auth, "flaky_thing", { idempotency_key: k, name: "Flaky", mode: "ok" });
    assert.equal(ok.error, undefined, "neither failure held the key");
    assert.equal(Number((await products("Flaky"))[0]?.count), 1);
  });

  test("a declined or expired request repeated answers denied with the decision and its time", async () => {
    const ranBefore = runs.remove_widget;
    const [row] = await app.ctx
      .db("products")
      .insert({ user_id: owner.user_id, workspace_id: owner.workspace_id, name: "Denied lamp" })
      .returning("id");
    const args = { idempotency_key: key(), product_id: row.id };
    const first = await call(rt, auth, "remove_widget", args);
    assert.equal(first.status, "approval_required");
    assert.ok(first.approval_url);
    const decided = await decideOperation(app.ctx, first.operation_id!, owner.user_id, "decline");
    assert.equal(decided.kind, "declined");
    const again = await call(rt, auth, "remove_widget", args);
    assert.equal(again.status, "denied");
    assert.equal(again.error, undefined);
    assert.equal(again.operation_id, first.operation_id);
    assert.equal(again.approval_url, undefined, "no approval URL for a denied request");
    const op = await app.ctx.db("operations").where({ id: first.operation_id }).first();
    assert.deepEqual(again.data, {
      summary: "Delete the product “Denied lamp”",
      decision: "declined",
      decided_at: op.decided_at.toISOString(),
    });
    assert.equal(again.next, undefined, "nothing follows a denied request");
    for (const tool of ["delete_product", "publish_post", "schedule_post", "approve_carousel"])
      assert.deepEqual(
        TOOLS_BY_NAME.get(tool)!.validateOutput(again),
        [],
        `a denied envelope matches the output schema of ${tool}`,
      );

    const late = { idempotency_key: key(), product_id: row.id };
    const waiting = await call(rt, auth, "remove_widget", late);
    await app.ctx
      .db("operations")
      .where({ id: waiting.operation_id })
      .update({ approval_expires_at: new Date(Date.now() - 1000) });
    await runMaintenance(app.ctx);
    const expired = await call(rt, auth, "remove_widget", late);
    assert.equal(expired.status, "denied");
    assert.equal(expired.approval_url, undefined);
    assert.equal((expired.data as { decision: string }).decision, "expired");
    assert.equal(runs.remove_widget, ranBefore, "nothing ran");
  });

  test("an approved request repeated answers its operation's state, the decision and the poll that follows", async () => {
    const [row] = await app.ctx
      .db("products")
      .insert({ user_id: owner.user_id, workspace_id: owner.workspace_id, name: "Approved lamp" })
      .returning("id");
    const args = { idempotency_key: key(), product_id: row.id };
    const first = await call(rt, auth, "remove_widget", args);
    assert.equal(first.status, "approval_required");
    assert.deepEqual(Object.keys(first.data ?? {}).sort(), ["expires_at", "summary"]);
    assert.equal(first.next?.tool, "get_job_status");
    const decided = await decideOperation(app.ctx, first.operation_id!, owner.user_id, "approve");
    assert.equal(decided.kind, "approved");
    // The worker may move the operation on while the call runs: its answer lies between the states read before and after.
    const order = ["queued", "running", "succeeded"];
    const stateNow = async () =>
      (await app.ctx.db("operations").where({ id: first.operation_id }).first()).state;
    const before = await stateNow();
    const again = await call(rt, auth, "remove_widget", args);
    const after = await stateNow();
    assert.ok(
      order.indexOf(again.status) >= order.indexOf(before) &&
        order.indexOf(again.status) <= order.indexOf(after),
      `the operation's state now (${before} .. ${after}), not the stale approval_required: ${again.status}`,
    );
    assert.notEqual(again.status, "approval_required");
    assert.equal(again.approval_url, undefined, "no approval URL once decided");
    assert.equal((again.data as { decision: string }).decision, "approved");
    assert.deepEqual(again.next?.arguments, { operation_id: first.operation_id, wait_seconds: 25 });
    for (const tool of ["delete_product", "publish_post", "schedule_post", "approve_carousel"])
      assert.deepEqual(TOOLS_BY_NAME.get(tool)!.validateOutput(again), [], tool);
  });

  test("records hold only hashes of the key and arguments and a sealed envelope", async () => {
    const k = randomUUID();
    await call(rt, auth, "create_thing", { idempotency_key: k, name: "Secret-ish name 123" });
    const rows = await app.ctx.db("idempotency_records").where({ grant_id: auth.grantId });
    const text = JSON.stringify(rows);
    assert.ok(!text.includes(k), "the key is stored hashed");
    assert.ok(!text.includes("Secret-ish name 123"), "arguments are not stored in plaintext");
    assert.ok(
      rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash) && /^[0-9a-f]{64}$/.test(r.arguments_hash)),
    );
    assert.ok(rows.every((r) => String(r.response_sealed).startsWith(`v2.${app.ctx.sealer.keyId}.`)));
  });
});
