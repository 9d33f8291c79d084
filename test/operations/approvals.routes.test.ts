/**
 * The approval pages and decisions (service spec 3.1, 4.4) over real HTTP with a real pg-boss worker.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { removeWidget, runs } from "./fixtures.ts";
import {
  browserSession,
  call,
  connection,
  key,
  postDecision,
  stateOf,
  useTools,
  waitFor,
} from "./helpers.ts";

const clock = new TestClock();
const app = await startTestApp({
  worker: true,
  clock,
  env: { RATE_LIMIT_DELETE: "1000", RATE_LIMIT_WRITES: "1000", RATE_LIMIT_BROWSER: "1000" },
});
const rt = useTools(app, [removeWidget]);
const owner = await app.user();
const stranger = await app.user();
const auth = await connection(app, owner, ["delete:products", "read:jobs"]);
const session = await browserSession(app.ctx, owner.user_id);

async function product(name: string): Promise<string> {
  const [row] = await app.ctx
    .db("products")
    .insert({ user_id: owner.user_id, workspace_id: owner.workspace_id, name })
    .returning("id");
  return row.id as string;
}

async function request(name: string): Promise<{ productId: string; operationId: string; url: string }> {
  const productId = await product(name);
  const env = await call(rt, auth, "remove_widget", { idempotency_key: key(), product_id: productId });
  assert.equal(env.status, "approval_required");
  assert.ok(env.operation_id && env.approval_url);
  return { productId, operationId: env.operation_id, url: env.approval_url };
}

test("the review call records approval_required with an approval_url and runs nothing", async () => {
  const before = runs.remove_widget;
  const { operationId, url, productId } = await request("Lamp");
  assert.equal(url, `${app.url}/settings/integrations/mcp/requests/${operationId}`);
  const row = await app.ctx.db("operations").where({ id: operationId }).first();
  assert.equal(row.state, "approval_required");
  const ttl = (row.approval_expires_at.getTime() - row.created_at.getTime()) / 1000;
  assert.equal(ttl, 1800);
  assert.equal(runs.remove_widget, before);
  const stillThere = await app.ctx.db("products").where({ id: productId }).first("deleted_at");
  assert.equal(stillThere.deleted_at, null);
});

test("a review call on a record the caller does not own is not_found and records nothing", async () => {
  const [row] = await app.ctx
    .db("products")
    .insert({ user_id: stranger.user_id, workspace_id: stranger.workspace_id, name: "Theirs" })
    .returning("id");
  const count = async () =>
    Number((await app.ctx.db("operations").where({ grant_id: auth.grantId }).count({ n: "*" }))[0]?.n);
  const before = await count();
  const env = await call(rt, auth, "remove_widget", { idempotency_key: key(), product_id: row.id });
  assert.equal(env.error?.code, "not_found");
  assert.equal(await count(), before);
});

test("GET shows the owner the request in plain, escaped words with hidden fields and decision buttons", async () => {
  const { url } = await request(`<script>alert("x")</script> Vase`);
  const res = await fetch(url, { headers: { cookie: session.cookie } });
  assert.equal(res.status, 200);
  const body = await res.text();
  assert.ok(res.headers.get("content-security-policy")?.includes("default-src 'none'"), "helmet CSP");
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.ok(!body.includes("<script>alert"), "retrieved text is escaped");
  assert.ok(body.includes("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Vase"));
  assert.ok(
    /<td data-label="Network">Instagram<\/td><td data-label="Account">Shop &lt;Main&gt;<\/td>/.test(body),
    "destinations by network and name, escaped",
  );
  assert.ok(body.includes("Test remove widget"), "the tool title");
  assert.match(body, /<input type="hidden" name="csrf_token" value="[^"]+">/);
  assert.match(body, /<button type="submit" name="decision" value="approve">/);
  assert.match(body, /<button type="submit" name="decision" value="decline"[ >]/);
  // The expiry in words, in the owner's time zone (UTC: none chosen), with the instant as `datetime`.
  assert.match(
    body,
    /Expires<\/th><td id="expires"><time datetime="\d{4}-\d{2}-\d{2}T[^"]+">\w+, \d{1,2} \w+ \d{4} at \d{2}:\d{2} \(UTC\)<\/time>/,
  );
});

test("anyone but the owner gets 404; without a session GET redirects to login and POST is 401", async () => {
  const { url, operationId } = await request("Chair");
  const other = await browserSession(app.ctx, stranger.user_id);
  assert.equal((await fetch(url, { headers: { cookie: other.cookie } })).status, 404);
  assert.equal((await postDecision(app, operationId, other, "approve")).status, 404);
  const anon = await fetch(url, { redirect: "manual" });
  assert.equal(anon.status, 303);
  assert.match(anon.headers.get("location") ?? "", /^\/login\?return_to=/);
  const anonPost = await fetch(url, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ decision: "approve" }),
  });
  assert.equal(anonPost.status, 401);
  assert.equal(
    (
      await fetch(`${app.url}/settings/integrations/mcp/requests/not-a-uuid`, {
        headers: { cookie: session.cookie },
      })
    ).status,
    404,
  );
  assert.equal(await stateOf(app.ctx, operationId), "approval_required");
});

test("POST without the session's CSRF token changes nothing", async () => {
  const { operationId } = await request("Desk");
  const res = await postDecision(app, operationId, session, "approve", "wrong-token");
  assert.equal(res.status, 403);
  assert.equal(await stateOf(app.ctx, operationId), "approval_required");
});

test("10 concurrent approve POSTs run the action exactly once", async () => {
  const { operationId, productId } = await request("Race lamp");
  const before = runs.remove_widget;
  const responses = await Promise.all(
    Array.from({ length: 10 }, () => postDecision(app, operationId, session, "approve")),
  );
  for (const r of responses) assert.equal(r.status, 303);
  const kinds = responses.map((r) =>
    new URL(r.headers.get("location") ?? "", app.url).searchParams.get("result"),
  );
  assert.equal(kinds.filter((k) => k === "approved").length, 1, "exactly one approval wins");
  await waitFor(
    () => stateOf(app.ctx, operationId),
    (s) => s === "succeeded",
  );
  // Give any stray duplicate a chance to run before counting.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(runs.remove_widget - before, 1);
  const row = await app.ctx.db("operations").where({ id: operationId }).first();
  assert.equal(row.attempts, 1);
  assert.equal(row.dispatch_count, 1);
  const p = await app.ctx.db("products").where({ id: productId }).first("deleted_at");
  assert.ok(p.deleted_at);
  const page = await (
    await fetch(`${app.url}/settings/integrations/mcp/requests/${operationId}`, {
      headers: { cookie: session.cookie },
    })
  ).text();
  assert.ok(!page.includes('value="approve"'), "no approve button once decided");
});

test("decline -> denied; a later approve cannot run it", async () => {
  const { operationId } = await request("Declined rug");
  const before = runs.remove_widget;
  const res = await postDecision(app, operationId, session, "decline");
  assert.equal(res.status, 303);
  assert.equal(await stateOf(app.ctx, operationId), "denied");
  const again = await postDecision(app, operationId, session, "approve");
  assert.match(again.headers.get("location") ?? "", /result=not_pending/);
  assert.equal(await stateOf(app.ctx, operationId), "denied");
  assert.equal(runs.remove_widget, before);
});

test("approval after 30 minutes (clock moved) -> denied, nothing runs", async () => {
  const { operationId } = await request("Late shelf");
  const before = runs.remove_widget;
  clock.advance(1801);
  const res = await postDecision(app, operationId, session, "approve");
  assert.match(res.headers.get("location") ?? "", /result=expired/);
  assert.equal(await stateOf(app.ctx, operationId), "denied");
  assert.equal(runs.remove_widget, before);
});

test("maintenance expires approvals older than 30 minutes", async () => {
  const { operationId } = await request("Forgotten stool");
  const fresh = await request("Fresh stool");
  clock.advance(1799);
  let report = await runMaintenance(app.ctx);
  assert.equal(await stateOf(app.ctx, operationId), "approval_required");
  clock.advance(2);
  report = await runMaintenance(app.ctx);
  assert.ok(report.expired >= 2);
  assert.equal(await stateOf(app.ctx, operationId), "denied");
  assert.equal(await stateOf(app.ctx, fresh.operationId), "denied");
});

test("revoked grant before approval -> the approval denies it", async () => {
  const other = await connection(app, owner, ["delete:products", "read:jobs"]);
  const productId = await product("Revoked table");
  const env = await call(rt, other, "remove_widget", { idempotency_key: key(), product_id: productId });
  assert.ok(env.operation_id);
  await app.ctx.db("oauth_grants").where({ id: other.grantId }).update({ revoked_at: new Date() });
  const res = await postDecision(app, env.operation_id, session, "approve");
  assert.match(res.headers.get("location") ?? "", /result=forbidden/);
  assert.equal(await stateOf(app.ctx, env.operation_id), "denied");
});
