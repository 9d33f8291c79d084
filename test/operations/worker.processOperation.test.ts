/**
 * The worker (service spec 3.1): claim, live re-authorization, outcomes, deadline and duplicate delivery,
 * with real pg-boss workers started by the test.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runAdmin } from "../../src/cli/admin.ts";
import { rowBinding } from "../../src/crypto/seal.ts";
import { ToolError } from "../../src/errors.ts";
import { decideOperation } from "../../src/operations/approvals.ts";
import { processOperation } from "../../src/operations/execute.ts";
import { startWorker } from "../../src/operations/worker.ts";
import { startTestApp } from "../helpers/app.ts";
import { jobStatusTool, removeWidget, runs } from "./fixtures.ts";
import { call, connection, key, makeTool, stateOf, useTools, waitFor } from "./helpers.ts";

const counts = { ok: 0, slow: 0, hang: 0 };
let release: (() => void) | undefined;

const jobTool = makeTool({
  name: "do_job",
  scope: "create:products",
  queued: true,
  properties: { mode: { enum: ["ok", "fail", "throw", "slow", "hang"] } },
  required: ["mode"],
  handler: {
    async accept(input) {
      return { data: { mode: input.mode }, credits_charged: 0 };
    },
    async execute(input, ctx) {
      switch (input.mode) {
        case "ok":
          counts.ok += 1;
          return { data: { done: true, operation_id: ctx.operationId } };
        case "fail":
          throw new ToolError("validation_failed", "the product has no name", [{ instancePath: "/name" }]);
        case "throw":
          throw new TypeError("provider said something secret");
        case "slow":
          counts.slow += 1;
          await new Promise((r) => setTimeout(r, 400));
          return { data: { done: true } };
        default:
          counts.hang += 1;
          await new Promise<void>((resolve) => {
            release = resolve;
            ctx.signal.addEventListener("abort", () => resolve());
          });
          return { data: { done: "late" } };
      }
    },
  },
});

const app = await startTestApp({
  env: {
    RATE_LIMIT_WRITES: "1000",
    RATE_LIMIT_DELETE: "1000",
    RATE_LIMIT_READS: "1000",
    OPERATION_DEADLINE_SECONDS: "2",
  },
});
const rt = useTools(app, [jobTool, removeWidget, jobStatusTool]);
const owner = await app.user();
const auth = await connection(app, owner, ["create:products", "delete:products", "read:jobs"]);
const worker = await startWorker(app.ctx);
after(() => worker.stop());

async function start(mode: string): Promise<string> {
  const env = await call(rt, auth, "do_job", { idempotency_key: key(), mode });
  assert.equal(env.status, "queued");
  assert.ok(env.operation_id);
  return env.operation_id;
}

const status = (id: string) => call(rt, auth, "get_job_status", { operation_id: id });

test("queued -> running -> succeeded; get_job_status shows the result", async () => {
  const id = await start("ok");
  await waitFor(
    () => stateOf(app.ctx, id),
    (s) => s === "succeeded",
  );
  const env = await status(id);
  assert.equal(env.status, "succeeded", "get_job_status is itself a successful read");
  assert.equal(env.data?.status, "succeeded");
  assert.deepEqual(env.data?.result, { done: true, operation_id: id });
  assert.equal(env.data?.tool, "do_job");
  assert.equal(env.data?.error, undefined);
});

test("an operation's result is ciphertext at rest, bound to its row (service spec 2.5)", async () => {
  const id = await start("ok");
  await waitFor(
    () => stateOf(app.ctx, id),
    (s) => s === "succeeded",
  );
  const row = await app.ctx.db("operations").where({ id }).first("result_sealed", "key_id");
  assert.match(row.result_sealed, new RegExp(`^v2\\.${app.ctx.sealer.keyId}\\.`));
  assert.equal(row.key_id, app.ctx.sealer.keyId);
  assert.doesNotMatch(row.result_sealed, /done|true/, "no plaintext of the result");
  assert.ok(!row.result_sealed.includes(id), "not even the operation id it holds");
  const opened = app.ctx.sealer.open<{ data: unknown }>(
    row.result_sealed,
    rowBinding("operations", "result_sealed", id),
  );
  assert.deepEqual(opened.data, { done: true, operation_id: id });
  assert.throws(() =>
    app.ctx.sealer.open(row.result_sealed, rowBinding("operations", "arguments_sealed", id)),
  );
});

test("a ToolError -> failed with the error; an unexpected exception -> outcome_unknown without its text", async () => {
  const failed = await start("fail");
  const unknown = await start("throw");
  await waitFor(
    () => stateOf(app.ctx, failed),
    (s) => s === "failed",
  );
  await waitFor(
    () => stateOf(app.ctx, unknown),
    (s) => s === "outcome_unknown",
  );
  const f = await status(failed);
  assert.deepEqual(f.data?.error, {
    code: "validation_failed",
    message: "the product has no name",
    retry: "new_key",
  });
  const u = await status(unknown);
  assert.equal((u.data?.error as { code?: string } | undefined)?.code, "outcome_unknown");
  assert.ok(!JSON.stringify(u).includes("secret"));
  const row = await app.ctx.db("operations").where({ id: unknown }).first();
  assert.equal(row.attempts, 1);
});

test("background executions write an audit row like foreground calls: who, tool, outcome, names only", async () => {
  const ok = await start("ok");
  const failed = await start("fail");
  for (const [id, state] of [
    [ok, "succeeded"],
    [failed, "failed"],
  ] as const) {
    await waitFor(
      () => stateOf(app.ctx, id),
      (s) => s === state,
    );
    // The worker's row is committed right after the final state (in the next audit batch).
    const rows = await waitFor(
      () => app.ctx.db("audit_records").where({ operation_id: id }).orderBy("id"),
      (rs) => rs.some((r: { origin: string }) => r.origin === "worker"),
    );
    const call = rows.find((r) => r.origin === "call");
    const bg = rows.find((r) => r.origin === "worker");
    assert.ok(call, "the foreground call's row");
    assert.ok(bg, "the background execution's row");
    assert.equal(bg.tool, "do_job");
    assert.equal(bg.user_id, owner.user_id);
    assert.equal(bg.workspace_id, owner.workspace_id);
    assert.equal(bg.grant_id, call.grant_id);
    assert.equal(bg.status, state);
    assert.equal(bg.error_code, state === "failed" ? "validation_failed" : null);
    assert.deepEqual([...bg.argument_names].sort(), ["idempotency_key", "mode"]);
    assert.notEqual(bg.request_id, call.request_id);
    assert.ok(!JSON.stringify(bg).includes("the product has no name"), "no messages or values");
  }
});

test("a run past its deadline -> outcome_unknown, the handler's signal is aborted, never replayed", async () => {
  const before = counts.hang;
  const id = await start("hang");
  await waitFor(
    () => stateOf(app.ctx, id),
    (s) => s === "outcome_unknown",
    15_000,
  );
  release?.();
  await app.ctx.queue?.dispatch(id);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(counts.hang - before, 1);
  assert.equal(await stateOf(app.ctx, id), "outcome_unknown");
});

test("two workers receiving the same job run the handler once", async () => {
  const second = await startWorker(app.ctx);
  try {
    const before = counts.slow;
    const id = await start("slow");
    // Duplicate deliveries: more jobs for the same operation, and direct concurrent processing.
    await Promise.all([
      app.ctx.queue?.dispatch(id),
      app.ctx.queue?.dispatch(id),
      processOperation(app.ctx, id),
      processOperation(app.ctx, id),
    ]);
    await waitFor(
      () => stateOf(app.ctx, id),
      (s) => s === "succeeded",
    );
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(counts.slow - before, 1);
    const row = await app.ctx.db("operations").where({ id }).first();
    assert.equal(row.attempts, 1);
    assert.equal(row.dispatch_count >= 1, true);
  } finally {
    await second.stop();
  }
});

test("revoked grant or removed membership between approval and execution -> not executed", async () => {
  // Stop consuming so that approved work waits in the queue.
  await worker.stop();
  const before = runs.remove_widget;
  const other = await app.user();
  const memberAuth = await connection(app, other, ["delete:products", "read:jobs"]);
  const revokedAuth = await connection(app, owner, ["delete:products", "read:jobs"]);
  const mk = async (who: typeof owner) => {
    const [p] = await app.ctx
      .db("products")
      .insert({ user_id: who.user_id, workspace_id: who.workspace_id, name: "X" })
      .returning("id");
    return p.id as string;
  };
  const a = await call(rt, revokedAuth, "remove_widget", {
    idempotency_key: key(),
    product_id: await mk(owner),
  });
  const b = await call(rt, memberAuth, "remove_widget", {
    idempotency_key: key(),
    product_id: await mk(other),
  });
  assert.ok(a.operation_id && b.operation_id);
  assert.equal((await decideOperation(app.ctx, a.operation_id, owner.user_id, "approve")).kind, "approved");
  assert.equal((await decideOperation(app.ctx, b.operation_id, other.user_id, "approve")).kind, "approved");
  assert.equal(await stateOf(app.ctx, a.operation_id), "queued");
  await app.ctx.db("oauth_grants").where({ id: revokedAuth.grantId }).update({ revoked_at: new Date() });
  await app.ctx
    .db("memberships")
    .where({ user_id: other.user_id, workspace_id: other.workspace_id })
    .delete();
  const w = await startWorker(app.ctx);
  try {
    await waitFor(
      () => stateOf(app.ctx, a.operation_id as string),
      (s) => s === "failed",
    );
    await waitFor(
      () => stateOf(app.ctx, b.operation_id as string),
      (s) => s === "failed",
    );
  } finally {
    await w.stop();
  }
  assert.equal(runs.remove_widget, before, "the handler never ran");
  const rows = await app.ctx.db("operations").whereIn("id", [a.operation_id, b.operation_id]);
  for (const r of rows) assert.equal(r.error_code, "forbidden");
});

test("the MCP enabled flag is rechecked: disabled -> failed with integration_disabled", async () => {
  const id = await start("ok");
  const before = counts.ok;
  app.ctx.config.mcpEnabled = false;
  try {
    const r = await processOperation(app.ctx, id);
    assert.deepEqual(r, { claimed: true, state: "failed" });
  } finally {
    app.ctx.config.mcpEnabled = true;
  }
  const row = await app.ctx.db("operations").where({ id }).first();
  assert.equal(row.error_code, "integration_disabled");
  assert.equal(counts.ok, before);
});

test("the flag is read from the database: `admin mcp disable` stops a worker whose environment says enabled", async () => {
  assert.equal(app.ctx.config.mcpEnabled, true, "this worker started with MCP_ENABLED=true");
  await runAdmin(app.ctx.db, ["mcp", "disable"]);
  try {
    const id = await start("ok");
    const before = counts.ok;
    assert.deepEqual(await processOperation(app.ctx, id), { claimed: true, state: "failed" });
    assert.equal((await app.ctx.db("operations").where({ id }).first()).error_code, "integration_disabled");
    assert.equal(counts.ok, before, "the handler did not run");
  } finally {
    assert.deepEqual(await runAdmin(app.ctx.db, ["mcp", "enable"]), { mcp_enabled: true });
  }
  const id = await start("ok");
  assert.deepEqual(await processOperation(app.ctx, id), { claimed: true, state: "succeeded" });
  // The row also overrides a disabled environment default; `default` removes it.
  app.ctx.config.mcpEnabled = false;
  try {
    const again = await start("ok");
    assert.deepEqual(await processOperation(app.ctx, again), { claimed: true, state: "succeeded" });
    assert.deepEqual(await runAdmin(app.ctx.db, ["mcp", "default"]), { mcp_enabled: null });
    const off = await start("ok");
    assert.deepEqual(await processOperation(app.ctx, off), { claimed: true, state: "failed" });
  } finally {
    app.ctx.config.mcpEnabled = true;
  }
  await assert.rejects(
    runAdmin(app.ctx.db, ["mcp", "toString"]),
    /usage: admin mcp enable\|disable\|default/,
  );
});
