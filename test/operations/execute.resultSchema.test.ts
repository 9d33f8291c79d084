/**
 * The worker checks a handler's result against the tool's `result` schema (generated/registry.ts
 * RESULT_VALIDATORS) before recording `succeeded`; a mismatch comes after the effect ran, so it is never
 * `failed` (whose advice, a new key, would do the action twice) but `outcome_unknown` (inspect the records
 * first), logged with the operation id, and nothing of the result is stored, shown or logged.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { test } from "node:test";
import { pino } from "pino";
import { processOperation } from "../../src/operations/execute.ts";
import { startTestApp } from "../helpers/app.ts";
import { jobStatusTool } from "./fixtures.ts";
import { call, connection, key, makeTool, stateOf, useTools } from "./helpers.ts";

const SECRET = "caption-text-that-must-not-leak";

// A queued stand-in under the name of a real tool, so that its catalog result schema applies:
// delete_post's result is `{post_id: uuid, deleted: true, removals: [...]}`, nothing else.
const deletePost = makeTool({
  name: "delete_post",
  scope: "delete:content",
  queued: true,
  properties: { mode: { enum: ["valid", "invalid"] } },
  required: ["mode"],
  handler: {
    async accept() {
      return { data: {} };
    },
    async execute(input) {
      return input.mode === "valid"
        ? { data: { post_id: randomUUID(), deleted: true, removals: [] } }
        : { data: { post_id: "not-a-uuid", deleted: true, caption: SECRET } };
    },
  },
});

const lines: string[] = [];
const app = await startTestApp({ env: { RATE_LIMIT_DELETE: "1000", RATE_LIMIT_READS: "1000" } });
app.ctx.log = pino(
  { level: "info" },
  new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  }),
);
const rt = useTools(app, [deletePost, jobStatusTool]);
const owner = await app.user();
const auth = await connection(app, owner, ["delete:content", "read:jobs"]);

async function queuedOperation(mode: "valid" | "invalid"): Promise<string> {
  const env = await call(rt, auth, "delete_post", { idempotency_key: key(), mode });
  assert.equal(env.status, "queued");
  return env.operation_id as string;
}

test("a result that matches the tool's result schema -> succeeded", async () => {
  const id = await queuedOperation("valid");
  const out = await processOperation(app.ctx, id);
  assert.deepEqual(out, { claimed: true, state: "succeeded" });
  const status = await call(rt, auth, "get_job_status", { operation_id: id });
  assert.equal(status.data?.status, "succeeded");
  assert.equal((status.data?.result as { deleted?: unknown } | undefined)?.deleted, true);
});

test("a result that breaks the schema after the effect ran -> outcome_unknown, never failed; logged with the operation id only", async () => {
  const id = await queuedOperation("invalid");
  const out = await processOperation(app.ctx, id);
  assert.deepEqual(out, { claimed: true, state: "outcome_unknown" });
  assert.equal(await stateOf(app.ctx, id), "outcome_unknown");
  const row = await app.ctx.db("operations").where({ id }).first();
  assert.equal(row.error_code, "outcome_unknown");
  assert.match(row.error_message, /inspect existing records/);
  assert.equal(row.result_sealed, null, "the invalid result is not stored");
  assert.equal(row.error_details, null);
  assert.doesNotMatch(row.error_message, /caption|uuid|post_id/);

  const status = await call(rt, auth, "get_job_status", { operation_id: id });
  assert.equal(status.data?.status, "outcome_unknown");
  assert.equal((status.data?.error as { code?: string } | undefined)?.code, "outcome_unknown");
  assert.equal(status.data?.result, undefined);
  assert.doesNotMatch(JSON.stringify(status), new RegExp(SECRET));

  const logged = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.operation_id === id && /result schema/.test(String(l.msg)));
  assert.equal(logged.length, 1, "one error line with the operation id");
  assert.equal(logged[0]!.level, 50);
  assert.ok(
    lines.every((l) => !l.includes(SECRET)),
    "no result value in any log line",
  );
});
