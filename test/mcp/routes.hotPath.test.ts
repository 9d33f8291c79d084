/**
 * The lean /mcp path (bench/README.md) keeps every rule: revocation, a removed membership and a disabled
 * account refuse the very next request of a token that was just accepted (its signature is remembered,
 * its status is not); a remembered token still expires on time; the per-IP and per-user counts stay exact
 * under concurrent requests; one audit row per call when rows are written in batches; a read call's budget
 * unit, consumed in the admission statement, is spent by every call that reaches the pipeline (also one
 * refused for its scope or arguments, or naming an unknown tool) and given back to a request refused before.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeJwt, importJWK, SignJWT } from "jose";
import { revokeGrant } from "../../src/oauth/grants.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";

const clock = new TestClock();
const app = await startTestApp({ queue: false, clock, env: { RATE_LIMIT_READS: "1000" } });

const profile = (token: string) =>
  rpc(app.resource, "tools/call", { name: "get_profile", arguments: {} }, { token, validate: false });

describe("status changes apply to the next request", () => {
  it("a revoked grant is refused right after a successful call", async () => {
    const who = await app.user();
    const c = await connect(app, who, ["read:profile"]);
    assert.equal((await profile(c.token)).body.result.structuredContent.status, "succeeded");
    await revokeGrant(app.ctx, c.grantId, "user");
    const r = await profile(c.token);
    assert.equal(r.status, 401);
    assert.match(r.headers.get("www-authenticate") ?? "", /invalid_token/);
  });

  it("a removed membership and a disabled account are refused right after a successful call", async () => {
    const bob = await app.user();
    const b = await connect(app, bob, ["read:profile"]);
    assert.equal((await profile(b.token)).status, 200);
    await app.ctx.db("memberships").where({ user_id: bob.user_id, workspace_id: bob.workspace_id }).delete();
    assert.equal((await profile(b.token)).status, 401);
    const carol = await app.user();
    const c = await connect(app, carol, ["read:profile"]);
    assert.equal((await profile(c.token)).status, 200);
    await app.ctx.db("users").where({ id: carol.user_id }).update({ status: "disabled" });
    assert.equal((await profile(c.token)).status, 401);
  });

  it("a suspended workspace's token gets 401 with the usual challenge right after a successful call", async () => {
    const who = await app.user();
    const c = await connect(app, who, ["read:profile"]);
    assert.equal((await profile(c.token)).status, 200);
    await app.ctx.db("workspaces").where({ id: who.workspace_id }).update({ status: "suspended" });
    const r = await profile(c.token);
    assert.equal(r.status, 401);
    const challenge = r.headers.get("www-authenticate") ?? "";
    assert.match(challenge, /^Bearer /);
    assert.match(challenge, /error="invalid_token"/);
    assert.match(challenge, /resource_metadata="/);
  });

  it("a token accepted before is refused once its exp has passed, even while its record is live", async () => {
    const who = await app.user();
    const c = await connect(app, who, ["read:profile"]);
    const claims = decodeJwt(c.token);
    const jwk = app.ctx.keys.signingKeys[0]!;
    const now = Math.floor(clock.now().getTime() / 1000);
    const { iss, aud, sub, jti, iat: _iat, exp: _exp, ...rest } = claims;
    const short = await new SignJWT(rest)
      .setProtectedHeader({ alg: "ES256", kid: jwk.kid!, typ: "at+jwt" })
      .setIssuer(iss!)
      .setAudience(aud as string)
      .setSubject(sub!)
      .setJti(jti!)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(await importJWK(jwk, "ES256"));
    assert.equal((await profile(short)).status, 200);
    clock.advance(120);
    assert.equal((await profile(short)).status, 401);
    assert.equal((await profile(c.token)).status, 200, "the record (1 hour) is still live");
  });

  it("a remembered token with another signature is not the same token", async () => {
    const who = await app.user();
    const c = await connect(app, who, ["read:profile"]);
    assert.equal((await profile(c.token)).status, 200);
    const [h, p, s] = c.token.split(".") as [string, string, string];
    const flipped = `${h}.${p}.${s.startsWith("A") ? `B${s.slice(1)}` : `A${s.slice(1)}`}`;
    assert.equal((await profile(flipped)).status, 401);
  });
});

describe("concurrent calls", () => {
  it("writes exactly one audit row per call when calls finish together", async () => {
    const who = await app.user();
    const c = await connect(app, who, ["read:profile"]);
    const results = await Promise.all(Array.from({ length: 20 }, () => profile(c.token)));
    const ids = results.map((r) => r.body.result.structuredContent.request_id as string);
    assert.equal(new Set(ids).size, 20);
    const rows = await app.ctx.db("audit_records").whereIn("request_id", ids).select("request_id", "tool");
    assert.equal(rows.length, 20);
    assert.deepEqual(new Set(rows.map((r) => r.request_id)), new Set(ids));
    assert.ok(rows.every((r) => r.tool === "get_profile"));
  });

  it("the per-user read budget admits exactly its limit of concurrent calls", async () => {
    const limited = await startTestApp({ queue: false, env: { RATE_LIMIT_READS: "5" } });
    const who = await limited.user();
    const c = await connect(limited, who, ["read:profile"]);
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        rpc(limited.resource, "tools/call", { name: "get_profile", arguments: {} }, { token: c.token }),
      ),
    );
    const envelopes = results.map((r) => r.body.result.structuredContent);
    assert.equal(envelopes.filter((e) => e.status === "succeeded").length, 5);
    const refused = envelopes.filter((e) => e.error?.code === "rate_limited");
    assert.equal(refused.length, 7);
    assert.ok(refused.every((e) => Number.isInteger(e.error.retry_after) && e.error.retry_after >= 1));
  });

  it("the per-IP limit admits exactly its limit of concurrent requests", async () => {
    const limited = await startTestApp({ queue: false, env: { RATE_LIMIT_MCP_IP: "6" } });
    const who = await limited.user();
    const c = await connect(limited, who, ["read:profile"]);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        rpc(limited.resource, "tools/list", {}, { token: c.token, validate: false }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    // Once over the limit, requests without a valid token are still answered 429 first.
    const noToken = await rpc(limited.resource, "tools/list", {}, { validate: false });
    assert.equal(noToken.status, 429);
    assert.ok(Number(noToken.headers.get("retry-after")) >= 1);
  });

  it("every call that reaches the pipeline spends a budget unit; a request refused before it does not", async () => {
    const limited = await startTestApp({ queue: false, env: { RATE_LIMIT_READS: "6" } });
    const who = await limited.user();
    const c = await connect(limited, who, ["read:profile"]);
    const call = (name: string, args: Record<string, unknown>, token = c.token) =>
      rpc(limited.resource, "tools/call", { name, arguments: args }, { token, validate: false });
    // A revoked client of the same user: refused before the pipeline, its unit given back.
    const revoked = await connect(limited, who, ["read:profile"]);
    assert.equal((await call("get_profile", {}, revoked.token)).status, 200, "unit 1");
    await revokeGrant(limited.ctx, revoked.grantId, "user");
    for (let i = 0; i < 4; i++) assert.equal((await call("get_profile", {}, revoked.token)).status, 401);
    const invalid = await call("get_profile", { nope: 1 });
    assert.equal(invalid.body.result.structuredContent.error.code, "invalid_arguments", "unit 2");
    assert.equal((await call("get_workspace", {})).status, 403, "missing scope: unit 3");
    assert.equal((await call("no_such_tool", {})).body.error.code, -32602, "unknown tool: unit 4");
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call("get_profile", {})).body.result.structuredContent.status);
    assert.deepEqual(
      statuses,
      ["succeeded", "succeeded", "failed"],
      "units 5 and 6, then the budget of 6 is spent",
    );
    const refused = (await call("get_profile", {})).body.result.structuredContent;
    assert.equal(refused.error.code, "rate_limited");
  });
});
