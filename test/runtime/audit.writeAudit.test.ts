/**
 * Audit rows (src/runtime/audit.ts): a row is committed when `writeAudit` resolves, with the argument names
 * only; a read's row (`effect: false`) goes through the asynchronously committing pool, every other row
 * (write tools, worker executions: the default) through the main pool, durably. The two pools are pointed
 * at two databases here, so that where a row landed shows which pool wrote it.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import type { AppContext } from "../../src/context.ts";
import { createLogger } from "../../src/log.ts";
import { type AuditEntry, writeAudit } from "../../src/runtime/audit.ts";
import { freshDatabase } from "../helpers/db.ts";

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
