/**
 * Long polls (DESIGN.md section 4 `wait_seconds`; src/domain/long-poll.ts, src/db/change-feed.ts) through the
 * real endpoint: get_job_status, get_carousel and get_automation_run answer as soon as the state changes (a
 * change by another connection wakes them through LISTEN/NOTIFY), at once when the state is settled, at the
 * deadline with the unchanged state otherwise; a waiting call spends one unit of the read budget, and
 * concurrent waits per user are bounded.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import pg from "pg";
import { grantCredits } from "../../../src/domain/account/credits.ts";
import { decideOperation } from "../../../src/operations/approvals.ts";
import { ALL_SCOPES } from "../../../src/scopes.ts";
import { startTestApp } from "../../helpers/app.ts";
import { rpc } from "../../helpers/mcp-client.ts";
import { connect } from "../../helpers/tokens.ts";
import { product } from "../carousels/fixtures.ts";

const app = await startTestApp({
  queue: false,
  env: { LONG_POLL_MAX_PER_USER: "2", RATE_LIMIT_READ: "40", RATE_LIMIT_DELETE: "50" },
});
const me = await app.user();
await grantCredits(app.ctx.db, me.user_id, 500, "test:grant");
const { token } = await connect(app, me, [...ALL_SCOPES]);

async function call(name: string, args: Record<string, unknown>, t = token) {
  const r = await rpc(app.resource, "tools/call", { name, arguments: args }, { token: t });
  assert.equal(r.status, 200, r.text);
  return r.body.result as { isError?: boolean; structuredContent: any; content: Array<{ text: string }> };
}

/** A delete_product request waiting for approval; its operation id. */
async function pendingRequest(): Promise<string> {
  const productId = await product(app, me);
  const r = await call("delete_product", { product_id: productId, idempotency_key: randomUUID() });
  assert.equal(r.structuredContent.status, "approval_required");
  return r.structuredContent.operation_id;
}

test("get_job_status answers as soon as the user decides, with the state and the next call", async () => {
  const operation_id = await pendingRequest();
  const started = performance.now();
  const waiting = call("get_job_status", { operation_id, wait_seconds: 20 });
  setTimeout(() => void decideOperation(app.ctx, operation_id, me.user_id, "decline"), 300);
  const r = await waiting;
  const waited = performance.now() - started;
  assert.equal(r.structuredContent.data.status, "denied");
  assert.ok(waited < 15_000, `answered at the change, not at the 20 s deadline (${Math.round(waited)} ms)`);
  assert.equal(r.structuredContent.next, undefined, "nothing follows a denied request");
});

test("unchanged: answers at the deadline with the approval URL again and the same poll as next", async () => {
  const operation_id = await pendingRequest();
  const r = await call("get_job_status", { operation_id, wait_seconds: 1 });
  const d = r.structuredContent.data;
  assert.equal(d.status, "approval_required");
  assert.match(d.approval_url, new RegExp(`/settings/integrations/mcp/requests/${operation_id}$`));
  assert.deepEqual(r.structuredContent.next, {
    tool: "get_job_status",
    arguments: { operation_id, wait_seconds: 25 },
    after_seconds: 0,
  });
  assert.match(r.content[1]!.text, /^Next: call get_job_status with \{"operation_id":/);
});

test("an approved request still queued or running answers the listed shape: next is the poll, with no note key", async () => {
  const operation_id = await pendingRequest();
  await decideOperation(app.ctx, operation_id, me.user_id, "approve");
  for (const state of ["queued", "running"]) {
    await app.ctx.db("operations").where({ id: operation_id }).update({ state });
    const r = await call("get_job_status", { operation_id });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent.error));
    assert.equal(r.structuredContent.data.status, state);
    assert.deepEqual(r.structuredContent.next, {
      tool: "get_job_status",
      arguments: { operation_id, wait_seconds: 25 },
      after_seconds: 5,
    });
  }
});

test("a settled operation answers at once, whatever the wait", async () => {
  const operation_id = await pendingRequest();
  await decideOperation(app.ctx, operation_id, me.user_id, "decline");
  const started = performance.now();
  const r = await call("get_job_status", { operation_id, wait_seconds: 25 });
  assert.equal(r.structuredContent.data.status, "denied");
  assert.ok(performance.now() - started < 10_000, "no wait on a settled operation");
});

test("get_carousel answers when the run's status changes, from a change made by another connection", async () => {
  const productId = await product(app, me);
  const g = await call("generate_carousel", {
    product_id: productId,
    design_id: "bold-minimal",
    slide_count: 4,
    idempotency_key: randomUUID(),
  });
  const { post_id, run_id } = g.structuredContent.data;
  assert.deepEqual(g.structuredContent.next, {
    tool: "get_carousel",
    arguments: { post_id, wait_seconds: 25 },
    after_seconds: 2,
  });
  const other = new pg.Client({ connectionString: app.ctx.config.databaseUrl });
  await other.connect();
  try {
    const waiting = call("get_carousel", { post_id, wait_seconds: 20 });
    setTimeout(
      () => void other.query("update carousel_runs set status = 'running' where id = $1", [run_id]),
      300,
    );
    const r = await waiting;
    assert.equal(r.structuredContent.data.run.status, "running");
    assert.equal(r.structuredContent.next.tool, "get_carousel", "still running: poll again");
  } finally {
    await other.end();
  }
});

test("the change feed is woken by another connection's change (LISTEN/NOTIFY), not only by its timer", async () => {
  const operation_id = await pendingRequest();
  const other = new pg.Client({ connectionString: app.ctx.config.databaseUrl });
  await other.connect();
  try {
    const woken = app.ctx.changes.wait(`operation:${operation_id}`, 60_000);
    await new Promise((r) => setTimeout(r, 200));
    await other.query("update operations set state = 'denied' where id = $1", [operation_id]);
    assert.equal(await woken, "changed");
  } finally {
    await other.end();
  }
});

test("a waiting call spends one read unit, and concurrent waits per user are bounded", async () => {
  const user = await app.user();
  const t = (await connect(app, user, [...ALL_SCOPES])).token;
  const productId = await product(app, user);
  const r = await call("delete_product", { product_id: productId, idempotency_key: randomUUID() }, t);
  const operation_id = r.structuredContent.operation_id;
  const used = async () =>
    Number(
      (
        await app.ctx
          .asyncCommitDb("rate_limits")
          .where("key", "like", `%budget:read%${user.user_id}%`)
          .sum({ n: "points" })
          .first()
      )?.n ?? 0,
    );
  const before = await used();
  // two waits of 3 s (each rechecks once) and a third beyond the bound of 2, which answers at once
  const started = performance.now();
  const [w1, w2, w3] = await Promise.all([
    call("get_job_status", { operation_id, wait_seconds: 3 }, t),
    call("get_job_status", { operation_id, wait_seconds: 3 }, t),
    (async () => {
      await new Promise((res) => setTimeout(res, 500));
      const r3 = await call("get_job_status", { operation_id, wait_seconds: 3 }, t);
      return { r3, at: performance.now() - started };
    })(),
  ]);
  for (const w of [w1, w2, w3.r3]) assert.equal(w.structuredContent.data.status, "approval_required");
  assert.ok(w3.at < 2_800, `the third call did not wait (${Math.round(w3.at)} ms)`);
  assert.equal((await used()) - before, 3, "one read unit per call, however long it waited");
});
