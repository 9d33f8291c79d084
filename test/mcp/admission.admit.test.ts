/**
 * The /mcp admission statement for a batch of concurrent requests (src/mcp/admission.ts): the per-IP and
 * per-user counts are exactly those of one consume after the other, a request's budget is counted only
 * when its IP was within its limit, a window that ended starts again from the batch's own count, and each
 * request gets its own token's record.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Request } from "express";
import { TOOLS } from "../../generated/registry.ts";
import { admit } from "../../src/mcp/admission.ts";
import { ipLimiter } from "../../src/mcp/guards.ts";
import { readBearer } from "../../src/oauth/bearer.ts";
import { createRuntime, prepayableBudget } from "../../src/runtime/pipeline.ts";
import { startTestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";

const IP_LIMIT = 10;
const READS = 6;
const app = await startTestApp({
  queue: false,
  env: { RATE_LIMIT_MCP_IP: String(IP_LIMIT), RATE_LIMIT_READS: String(READS) },
});
const runtime = createRuntime(app.ctx, TOOLS);
const prepay = async () => prepayableBudget(runtime, "get_profile");

/** A request as admission sees it. */
function request(token: string, ip: string): Request {
  return {
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    query: {},
    body: undefined,
    ip,
    is: () => "application/json",
  } as unknown as Request;
}

const points = async (key: string) =>
  (await app.ctx.asyncCommitDb("rate_limits").where({ key }).first("points"))?.points as number | undefined;

test("concurrent requests are counted exactly, per IP and per user, budgets only within the IP limit", async () => {
  const ipLimit = ipLimiter(app.ctx);
  const aliceUser = await app.user();
  const bobUser = await app.user();
  const alice = { ...(await connect(app, aliceUser, ["read:profile"])), userId: aliceUser.user_id };
  const bob = { ...(await connect(app, bobUser, ["read:profile"])), userId: bobUser.user_id };
  // 14 requests from one IP (limit 10): alice's 8 first, then bob's 6; 5 more of bob's from another IP.
  const busy = [
    ...Array.from({ length: 8 }, () => request(alice.token, "10.0.0.1")),
    ...Array.from({ length: 6 }, () => request(bob.token, "10.0.0.1")),
  ];
  const quiet = Array.from({ length: 5 }, () => request(bob.token, "10.0.0.2"));
  // Each token's signature is verified once per process, asynchronously; verified first, every request
  // below reaches the batch in the order it was sent (one batch, counted in that order).
  for (const t of [alice.token, bob.token]) await readBearer(app.ctx, request(t, "10.0.9.9"));
  const results = await Promise.all([...busy, ...quiet].map((req) => admit(app.ctx, ipLimit, req, prepay)));

  const fromBusy = results.slice(0, busy.length);
  assert.equal(fromBusy.filter((r) => r.kind === "admitted").length, IP_LIMIT);
  assert.equal(fromBusy.filter((r) => r.kind === "ip_limited").length, busy.length - IP_LIMIT);
  assert.ok(results.slice(busy.length).every((r) => r.kind === "admitted"));
  assert.equal(await points("mcp:ip:10.0.0.1"), busy.length, "refused requests count too");
  assert.equal(await points("mcp:ip:10.0.0.2"), quiet.length);

  // Budgets: only requests within their IP's limit consumed one; the verdicts follow the running count.
  const admitted = results.filter((r) => r.kind === "admitted");
  assert.ok(admitted.every((r) => r.prepaid !== undefined));
  assert.ok(results.filter((r) => r.kind === "ip_limited").every((r) => r.prepaid === undefined));
  const aliceUnits = admitted.filter((r) => r.kind === "admitted" && r.auth.userId === alice.userId);
  const bobUnits = admitted.filter((r) => r.kind === "admitted" && r.auth.userId === bob.userId);
  assert.equal(aliceUnits.length, 8);
  assert.equal(bobUnits.length, 7, "2 of bob's from the busy IP, 5 from the other");
  assert.equal(aliceUnits.filter((r) => r.prepaid?.verdict.ok).length, READS);
  assert.equal(bobUnits.filter((r) => r.prepaid?.verdict.ok).length, READS);
  assert.equal(await points(`budget:read:${alice.userId}`), 8);
  assert.equal(await points(`budget:read:${bob.userId}`), 7);
  for (const r of admitted) await r.prepaid?.release();
  assert.equal(await points(`budget:read:${alice.userId}`), 0, "every unit given back");
});

test("a window that ended starts again with the batch's own count", async () => {
  const ipLimit = ipLimiter(app.ctx);
  const carol = await connect(app, await app.user(), ["read:profile"]);
  await app.ctx
    .asyncCommitDb("rate_limits")
    .insert({ key: "mcp:ip:10.0.0.3", points: 999, expire: Date.now() - 1000 });
  const results = await Promise.all(
    Array.from({ length: 4 }, () => admit(app.ctx, ipLimit, request(carol.token, "10.0.0.3"))),
  );
  assert.ok(results.every((r) => r.kind === "admitted"));
  assert.equal(await points("mcp:ip:10.0.0.3"), 4);
});

test("each request of a batch gets its own token's record; an unknown token is refused alone", async () => {
  const ipLimit = ipLimiter(app.ctx);
  const users = await Promise.all([app.user(), app.user(), app.user()]);
  const tokens = await Promise.all(users.map((u) => connect(app, u, ["read:profile"])));
  await app.ctx.db("oauth_access_tokens").where({ grant_id: tokens[1]!.grantId }).delete();
  const results = await Promise.all(
    tokens.map((t, i) => admit(app.ctx, ipLimit, request(t.token, `10.0.1.${i}`))),
  );
  assert.equal(results[1]!.kind, "refused");
  for (const i of [0, 2]) {
    const r = results[i]!;
    assert.equal(r.kind, "admitted");
    if (r.kind === "admitted") {
      assert.equal(r.auth.userId, users[i]!.user_id);
      assert.equal(r.auth.grantId, tokens[i]!.grantId);
    }
  }
});
