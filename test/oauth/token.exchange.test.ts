/** Token endpoint, authorization_code grant (RFC 6749 4.1.3, RFC 7636 4.6, RFC 8707). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { exchange, HIGH_LIMITS, Jar, obtainCode, pkce, register } from "./support.ts";

const clock = new TestClock();
const app = await startTestApp({ env: HIGH_LIMITS, clock });
const alice = await app.user();

async function grantRevoked(grantId: string): Promise<boolean> {
  const g = await app.ctx.db("oauth_grants").where({ id: grantId }).first("revoked_at");
  return Boolean(g?.revoked_at);
}

async function grantOfCode(code: string): Promise<string> {
  const { sha256 } = await import("../../src/crypto/seal.ts");
  const row = await app.ctx
    .db("oauth_authorization_codes")
    .where({ code_hash: sha256(code) })
    .first("grant_id");
  return row.grant_id;
}

test("a code with the right verifier, redirect URI and resource yields a token pair", async () => {
  const r = await obtainCode(app, new Jar(app.url), alice);
  assert.equal(r.location.searchParams.get("state"), "st-123");
  assert.equal(r.location.searchParams.get("iss"), app.ctx.config.issuerUrl);
  const t = await exchange(app, r);
  assert.equal(t.status, 200);
  assert.equal(t.headers.get("cache-control"), "no-store");
  assert.equal(t.body.token_type, "Bearer");
  assert.equal(t.body.expires_in, 3600);
  assert.equal(t.body.scope, "read:profile read:content");
  assert.match(t.body.refresh_token, /^[A-Za-z0-9_-]{43}$/);
  const header = decodeProtectedHeader(t.body.access_token);
  assert.equal(header.alg, "ES256");
  assert.equal(header.typ, "at+jwt");
  assert.equal(header.kid, app.ctx.keys.signingKeys[0]!.kid);
  const claims = decodeJwt(t.body.access_token);
  assert.equal(claims.iss, app.ctx.config.issuerUrl);
  assert.equal(claims.aud, app.resource);
  assert.equal(claims.sub, alice.user_id);
  assert.equal(claims.client_id, r.client.client_id);
  assert.equal(claims.workspace_id, alice.workspace_id);
  assert.equal(claims.scope, "read:profile read:content");
  assert.equal((claims.exp as number) - (claims.iat as number), 3600);
  const grantId = claims.grant_id as string;
  const row = await app.ctx
    .db("oauth_access_tokens")
    .where({ jti: claims.jti as string })
    .first();
  assert.equal(row.grant_id, grantId);
  // Only hashes are stored: neither token appears in any OAuth table.
  const dump = JSON.stringify(
    await Promise.all(
      ["oauth_refresh_tokens", "oauth_access_tokens", "oauth_authorization_codes"].map((t) =>
        app.ctx.db(t).select(),
      ),
    ),
  );
  assert.ok(!dump.includes(t.body.refresh_token));
  assert.ok(!dump.includes(r.code));
});

test("a wrong code_verifier is refused and burns the code", async () => {
  const r = await obtainCode(app, new Jar(app.url), alice);
  const bad = await exchange(app, r, { code_verifier: pkce().verifier });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, "invalid_grant");
  assert.equal(bad.headers.get("cache-control"), "no-store");
  const retry = await exchange(app, r);
  assert.equal(retry.body.error, "invalid_grant");
  assert.ok(await grantRevoked(await grantOfCode(r.code)));
});

test("a missing code_verifier is refused", async () => {
  const r = await obtainCode(app, new Jar(app.url), alice);
  const bad = await exchange(app, r, { code_verifier: undefined });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, "invalid_grant");
});

test("the challenge itself as verifier (a plain-method attempt) is refused", async () => {
  const r = await obtainCode(app, new Jar(app.url), alice);
  const bad = await exchange(app, r, { code_verifier: r.pkce.challenge });
  assert.equal(bad.body.error, "invalid_grant");
});

test("a code used twice is refused and the grant and its tokens are revoked", async () => {
  const r = await obtainCode(app, new Jar(app.url), alice);
  const first = await exchange(app, r);
  assert.equal(first.status, 200);
  const second = await exchange(app, r);
  assert.equal(second.status, 400);
  assert.equal(second.body.error, "invalid_grant");
  const grantId = decodeJwt(first.body.access_token).grant_id as string;
  assert.ok(await grantRevoked(grantId));
  const access = await app.ctx.db("oauth_access_tokens").where({ grant_id: grantId }).first();
  assert.ok(access.revoked_at);
  const refresh = await exchange(app, r, {
    grant_type: "refresh_token",
    code: undefined,
    code_verifier: undefined,
    redirect_uri: undefined,
    refresh_token: first.body.refresh_token,
  });
  assert.equal(refresh.body.error, "invalid_grant");
});

test("a code presented by another client is refused", async () => {
  const r = await obtainCode(app, new Jar(app.url), alice);
  const other = await register(app);
  const bad = await exchange(app, r, { client_id: other.client_id });
  assert.equal(bad.body.error, "invalid_grant");
  assert.equal((await exchange(app, r)).body.error, "invalid_grant");
});

test("a code exchanged with a different redirect URI is refused", async () => {
  const client = await register(app, {
    redirect_uris: ["https://app.example/cb", "https://app.example/other"],
  });
  const r = await obtainCode(app, new Jar(app.url), alice, { client });
  const bad = await exchange(app, r, { redirect_uri: "https://app.example/other" });
  assert.equal(bad.body.error, "invalid_grant");
  const missing = await exchange(app, await obtainCode(app, new Jar(app.url), alice, { client }), {
    redirect_uri: undefined,
  });
  assert.equal(missing.body.error, "invalid_grant");
});

test("a resource other than the MCP endpoint at exchange is invalid_target", async () => {
  for (const resource of [`${app.url}/other`, `${app.resource}/`, undefined]) {
    const r = await obtainCode(app, new Jar(app.url), alice);
    const bad = await exchange(app, r, { resource });
    assert.equal(bad.status, 400, String(resource));
    assert.equal(bad.body.error, "invalid_target");
  }
});

test("an expired code (older than 60 s) is refused", async () => {
  const r = await obtainCode(app, new Jar(app.url), alice);
  clock.advance(61);
  const bad = await exchange(app, r);
  assert.equal(bad.body.error, "invalid_grant");
});

test("an unknown client, unknown grant type and JSON body are refused with RFC 6749 errors", async () => {
  const r = await obtainCode(app, new Jar(app.url), alice);
  const unknown = await exchange(app, r, { client_id: "8d7c50c9-4a5e-4ac3-9a0e-8f8d3c0f7a11" });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.body.error, "invalid_client");
  const grant = await exchange(app, r, { grant_type: "password" });
  assert.equal(grant.body.error, "unsupported_grant_type");
  const res = await fetch(`${app.url}/mcp/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grant_type: "authorization_code" }),
  });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { error: string }).error, "invalid_request");
});

test("a code whose user lost the workspace membership is refused", async () => {
  const bob = await app.user();
  const r = await obtainCode(app, new Jar(app.url), bob);
  await app.ctx.db("memberships").where({ user_id: bob.user_id, workspace_id: bob.workspace_id }).delete();
  const bad = await exchange(app, r);
  assert.equal(bad.body.error, "invalid_grant");
  // The refused presentation spent the code: restoring the membership does not revive it.
  await app.ctx
    .db("memberships")
    .insert({ user_id: bob.user_id, workspace_id: bob.workspace_id, role: "owner" });
  assert.equal((await exchange(app, r)).body.error, "invalid_grant");
});
