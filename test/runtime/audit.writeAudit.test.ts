/**
 * Audit rows (src/runtime/audit.ts): a row is committed when `writeAudit` resolves, with the argument names
 * only; a read's row (`effect: false`) goes through the asynchronously committing pool, every other row
 * (write tools, worker executions: the default) through the main pool, durably; the pipeline marks the
 * calls of read tools so. The two pools are pointed at two databases here, so that where a row landed
 * shows which pool wrote it.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import type { AppContext } from "../../src/context.ts";
import { createLogger } from "../../src/log.ts";
import { type AuditEntry, writeAudit } from "../../src/runtime/audit.ts";
import { callTool, createRuntime } from "../../src/runtime/pipeline.ts";
import { startTestApp } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { connect } from "../helpers/tokens.ts";
import { fixtureTool } from "../mcp/fixture.ts";

const main = await freshDatabase();
const asyncCommit = await freshDatabase();
const ctx = { db: main.db, asyncCommitDb: asyncCommit.db, log: createLogger("silent") } as AppContext;

const auth = { userId: randomUUID(), workspaceId: randomUUID(), grantId: randomUUID() };

function entry(tool: string, extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    requestId: randomUUID(),
    auth,
    tool,
    args: { caption: "never stored", idempotency_key: "k" },
    durationMs: 3.4,
    envelope: { status: "succeeded" },
    ...extra,
  };
}

test("a read's row commits on the asynchronous pool, a write's and a worker's on the main pool", async () => {
  const read = entry("get_profile", { effect: false });
  const write = entry("create_text_post", { effect: true });
  const worker = entry("publish_post", {
    origin: "worker",
    envelope: { status: "failed", error: { code: "not_found" } },
  });
  await Promise.all([writeAudit(ctx, read), writeAudit(ctx, write), writeAudit(ctx, worker)]);
  const inMain = await main.db("audit_records").select("request_id", "tool", "origin", "argument_names");
  const inAsync = await asyncCommit.db("audit_records").select("request_id", "tool");
  assert.deepEqual(
    inAsync.map((r) => r.request_id),
    [read.requestId],
  );
  assert.deepEqual(inMain.map((r) => r.request_id).sort(), [write.requestId, worker.requestId].sort());
  const w = inMain.find((r) => r.request_id === write.requestId);
  assert.deepEqual(w?.argument_names, ["caption", "idempotency_key"], "names only, never values");
  assert.equal(inMain.find((r) => r.request_id === worker.requestId)?.origin, "worker");
});

test("the rows of many concurrent calls are all committed when each call's write resolves", async () => {
  const entries = Array.from({ length: 250 }, (_, i) => entry(`tool_${i % 3}`, { effect: i % 2 === 0 }));
  await Promise.all(entries.map((e) => writeAudit(ctx, e)));
  const ids = new Set(entries.map((e) => e.requestId));
  const main_ = await main
    .db("audit_records")
    .whereIn("request_id", [...ids])
    .count<{ n: string }[]>("* as n");
  const async_ = await asyncCommit
    .db("audit_records")
    .whereIn("request_id", [...ids])
    .count<{ n: string }[]>("* as n");
  assert.equal(Number(main_[0]?.n), 125);
  assert.equal(Number(async_[0]?.n), 125);
});

test("the pipeline audits a read tool's call asynchronously and a write tool's durably", async () => {
  const app = await startTestApp({ queue: false });
  const who = await app.user();
  const connection = await connect(app, who, ["read:profile", "create:content"]);
  // The app's main pool, and the asynchronous pool pointed at the second database.
  const split = { ...app.ctx, asyncCommitDb: asyncCommit.db } as AppContext;
  const read = fixtureTool({ name: "read_thing" }, async () => ({ data: {} }));
  const write = fixtureTool(
    {
      name: "write_thing",
      access: "write",
      budget: "write",
      scope: "create:content",
      inputSchema: {
        type: "object",
        additionalProperties: false,
        properties: { idempotency_key: { type: "string" } },
        required: ["idempotency_key"],
      },
    },
    async () => ({ data: {} }),
  );
  const runtime = createRuntime(split, [read, write]);
  const auth = {
    userId: who.user_id,
    workspaceId: who.workspace_id,
    grantId: connection.grantId,
    clientId: connection.clientId,
    scopes: new Set(["read:profile", "create:content"]),
    tokenId: connection.jti,
  };
  const options = { signal: new AbortController().signal, progress: () => {} };
  const calls = [
    await callTool(runtime, auth, "read_thing", {}, options),
    await callTool(runtime, auth, "write_thing", { idempotency_key: randomUUID() }, options),
  ];
  const [readId, writeId] = calls.map((c) => (c.kind === "result" ? c.envelope.request_id : ""));
  assert.ok(readId && writeId, "both calls succeeded");
  const where = async (requestId: string) => ({
    main: (await app.ctx.db("audit_records").where({ request_id: requestId })).length,
    async: (await asyncCommit.db("audit_records").where({ request_id: requestId })).length,
  });
  assert.deepEqual(await where(readId), { main: 0, async: 1 }, "a read's row: asynchronous pool");
  assert.deepEqual(await where(writeId), { main: 1, async: 0 }, "a write's row: main pool, durable");
});

test('a "\\u0000" argument name next to another user\'s write: both rows are committed, the name hashed', async () => {
  const other = { userId: randomUUID(), workspaceId: randomUUID(), grantId: randomUUID() };
  const bad = entry("get_profile", { args: { "\u0000": 1, "\ud800": 2, "a b": 3, plain_name: 4 } });
  const write = entry("create_text_post", { auth: other });
  // Submitted in the same turn: one batch, one insert.
  await Promise.all([writeAudit(ctx, bad), writeAudit(ctx, write)]);
  const rows = await main
    .db("audit_records")
    .whereIn("request_id", [bad.requestId, write.requestId])
    .select("request_id", "user_id", "argument_names");
  const byId = new Map(rows.map((r) => [r.request_id, r]));
  assert.equal(byId.get(write.requestId)?.user_id, other.userId, "the other user's row exists");
  const names = byId.get(bad.requestId)?.argument_names as string[];
  assert.equal(names.length, 4);
  assert.ok(names.includes("plain_name"));
  const hashed = names.filter((n) => n !== "plain_name");
  assert.ok(
    hashed.every((n) => /^#[0-9a-f]{16}$/.test(n)),
    `names outside ^[A-Za-z0-9_]{1,64}$ are stored as hashes: ${names}`,
  );
  assert.equal(new Set(hashed).size, 3, "each bad name keeps its own hash");
});

test("a row the database refuses costs only its own row: the rest of its batch is inserted one by one", async () => {
  const others = Array.from({ length: 5 }, () =>
    entry("create_text_post", {
      auth: { userId: randomUUID(), workspaceId: randomUUID(), grantId: randomUUID() },
    }),
  );
  const refused = entry("bad\u0000tool");
  await Promise.all([writeAudit(ctx, refused), ...others.map((e) => writeAudit(ctx, e))]);
  const stored = await main
    .db("audit_records")
    .whereIn(
      "request_id",
      [refused, ...others].map((e) => e.requestId),
    )
    .pluck("request_id");
  assert.deepEqual(stored.sort(), others.map((e) => e.requestId).sort());
});
