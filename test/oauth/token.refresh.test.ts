/**
 * Token endpoint, refresh_token grant (RFC 6749 6, OAuth 2.1 4.3.1, RFC 8707): rotation,
 * narrowing, no widening, resource, the 60-second theft window.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeJwt } from "jose";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { HIGH_LIMITS, Jar, obtainTokens, register, tokenRequest } from "./support.ts";

const clock = new TestClock();
const app = await startTestApp({ env: HIGH_LIMITS, clock });
const alice = await app.user();
const jar = new Jar(app.url);

async function connection(scope = "read:profile read:content read:jobs") {
  const r = await obtainTokens(app, jar, alice, { query: { scope } });
  return {
    clientId: r.client.client_id,
    ...r.tokens,
    grantId: decodeJwt(r.tokens.access_token).grant_id as string,
  };
}

function refresh(clientId: string, refreshToken: string, over: Record<string, string | undefined> = {}) {
  return tokenRequest(app, {
    grant_type: "refresh_token",
    client_id: clientId,
    refresh_token: refreshToken,
    resource: app.resource,
    ...over,
  });
}

async function revoked(grantId: string) {
  return Boolean((await app.ctx.db("oauth_grants").where({ id: grantId }).first("revoked_at")).revoked_at);
}

test("a refresh rotates: new pair, same grant, the old refresh token is consumed", async () => {
  const c = await connection();
  const r = await refresh(c.clientId, c.refresh_token);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("cache-control"), "no-store");
  assert.notEqual(r.body.refresh_token, c.refresh_token);
  assert.equal(r.body.scope, "read:profile read:content read:jobs");
  assert.equal(r.body.expires_in, 3600);
  assert.equal(decodeJwt(r.body.access_token).grant_id, c.grantId);
  const again = await refresh(c.clientId, r.body.refresh_token);
  assert.equal(again.status, 200);
});

test("a narrower scope is allowed; a wider one is invalid_scope", async () => {
  const c = await connection();
  const narrow = await refresh(c.clientId, c.refresh_token, { scope: "read:profile" });
  assert.equal(narrow.status, 200);
  assert.equal(narrow.body.scope, "read:profile");
  assert.equal(decodeJwt(narrow.body.access_token).scope, "read:profile");
  // The refresh token keeps the granted scope: a later refresh can return to it, never beyond it.
  const back = await refresh(c.clientId, narrow.body.refresh_token);
  assert.equal(back.body.scope, "read:profile read:content read:jobs");
  const wide = await refresh(c.clientId, back.body.refresh_token, { scope: "read:profile delete:content" });
  assert.equal(wide.status, 400);
  assert.equal(wide.body.error, "invalid_scope");
  const unknown = await refresh(c.clientId, back.body.refresh_token, { scope: "admin" });
  assert.equal(unknown.body.error, "invalid_scope");
  // A refused refresh does not consume the token.
  assert.equal((await refresh(c.clientId, back.body.refresh_token)).status, 200);
});

test("a resource other than the MCP endpoint at refresh is invalid_target", async () => {
  const c = await connection();
  for (const resource of [`${app.url}/other`, "https://evil.example/mcp", undefined]) {
    const r = await refresh(c.clientId, c.refresh_token, { resource });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, "invalid_target", String(resource));
  }
  assert.equal((await refresh(c.clientId, c.refresh_token)).status, 200);
});

test("a refresh token presented by another client is invalid_grant", async () => {
  const c = await connection();
  const other = await register(app);
  const r = await refresh(other.client_id, c.refresh_token);
  assert.equal(r.body.error, "invalid_grant");
  assert.equal(await revoked(c.grantId), false);
});

test("a consumed refresh token within 60 s is invalid_grant without revoking the grant", async () => {
  const c = await connection();
  const next = await refresh(c.clientId, c.refresh_token);
  assert.equal(next.status, 200);
  clock.advance(30);
  const reuse = await refresh(c.clientId, c.refresh_token);
  assert.equal(reuse.status, 400);
  assert.equal(reuse.body.error, "invalid_grant");
  assert.equal(await revoked(c.grantId), false);
  assert.equal((await refresh(c.clientId, next.body.refresh_token)).status, 200);
});

test("reuse inside the grace window mints nothing: the earlier rotation stays the only live family", async () => {
  const c = await connection();
  const next = await refresh(c.clientId, c.refresh_token);
  assert.equal(next.status, 200);
  const live = async () =>
    (await app.ctx
      .db("oauth_refresh_tokens")
      .where({ grant_id: c.grantId })
      .whereNull("consumed_at")
      .whereNull("revoked_at")
      .select("id")) as Array<{ id: string }>;
  const count = async (table: string) =>
    Number((await app.ctx.db(table).where({ grant_id: c.grantId }).count({ n: "*" }).first())!.n);
  const before = {
    live: await live(),
    refresh: await count("oauth_refresh_tokens"),
    access: await count("oauth_access_tokens"),
  };
  assert.equal(before.live.length, 1);
  clock.advance(5);
  // Presented again, twice and concurrently, as a retrying client would.
  const reuses = await Promise.all([
    refresh(c.clientId, c.refresh_token),
    refresh(c.clientId, c.refresh_token),
  ]);
  for (const r of reuses) {
    assert.equal(r.body.error, "invalid_grant");
    assert.equal(r.body.access_token, undefined);
    assert.equal(r.body.refresh_token, undefined);
  }
  assert.deepEqual(await live(), before.live, "still exactly the one token from the earlier rotation");
  assert.equal(await count("oauth_refresh_tokens"), before.refresh);
  assert.equal(await count("oauth_access_tokens"), before.access);
  assert.equal((await refresh(c.clientId, next.body.refresh_token)).status, 200);
});

test("a consumed refresh token after 60 s is treated as theft and revokes the whole grant", async () => {
  const c = await connection();
  const next = await refresh(c.clientId, c.refresh_token);
  assert.equal(next.status, 200);
  clock.advance(61);
  const reuse = await refresh(c.clientId, c.refresh_token);
  assert.equal(reuse.body.error, "invalid_grant");
  assert.equal(await revoked(c.grantId), true);
  const legit = await refresh(c.clientId, next.body.refresh_token);
  assert.equal(legit.body.error, "invalid_grant");
  const access = await app.ctx
    .db("oauth_access_tokens")
    .where({ grant_id: c.grantId })
    .whereNull("revoked_at");
  assert.equal(access.length, 0);
});

test("a refresh token of a revoked grant, an expired one and an unknown one are invalid_grant", async () => {
  const c = await connection();
  await app.ctx.db("oauth_grants").where({ id: c.grantId }).update({ revoked_at: clock.now() });
  assert.equal((await refresh(c.clientId, c.refresh_token)).body.error, "invalid_grant");
  const d = await connection();
  clock.advance(30 * 24 * 3600 + 1);
  assert.equal((await refresh(d.clientId, d.refresh_token)).body.error, "invalid_grant");
  assert.equal((await refresh(d.clientId, "x".repeat(43))).body.error, "invalid_grant");
});

test("a refresh after the user lost the membership or was disabled is invalid_grant", async () => {
  const bob = await app.user();
  const bobJar = new Jar(app.url);
  const r = await obtainTokens(app, bobJar, bob);
  await app.ctx.db("memberships").where({ user_id: bob.user_id }).delete();
  const res = await refresh(r.client.client_id, r.tokens.refresh_token);
  assert.equal(res.body.error, "invalid_grant");
  const carol = await app.user();
  const c = await obtainTokens(app, new Jar(app.url), carol);
  await app.ctx.db("users").where({ id: carol.user_id }).update({ status: "disabled" });
  assert.equal((await refresh(c.client.client_id, c.tokens.refresh_token)).body.error, "invalid_grant");
});

test("a refresh for a suspended workspace is invalid_grant", async () => {
  const erin = await app.user();
  const r = await obtainTokens(app, new Jar(app.url), erin);
  await app.ctx.db("workspaces").where({ id: erin.workspace_id }).update({ status: "suspended" });
  const res = await refresh(r.client.client_id, r.tokens.refresh_token);
  assert.equal(res.status, 400);
  assert.equal(res.body.error, "invalid_grant");
});
