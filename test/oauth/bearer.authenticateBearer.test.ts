/**
 * authenticateBearer (RFC 6750, RFC 9068, service spec 5.8) against tokens from the real
 * token endpoint and from the test shortcut (test/helpers/tokens.ts), and every forgery the issue lists.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Request } from "express";
import { decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, UnsecuredJWT } from "jose";
import { authenticateBearer, BearerError } from "../../src/oauth/bearer.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";
import { HIGH_LIMITS, Jar, obtainTokens } from "./support.ts";

const clock = new TestClock();
const app = await startTestApp({ env: HIGH_LIMITS, clock });
const alice = await app.user();

function req(authorization?: string, query: Record<string, string> = {}): Request {
  return { headers: authorization === undefined ? {} : { authorization }, query } as unknown as Request;
}

async function rejects(r: Request, presented = true): Promise<void> {
  await assert.rejects(authenticateBearer(app.ctx, r), (err: unknown) => {
    assert.ok(err instanceof BearerError);
    assert.equal(err.tokenPresented, presented);
    return true;
  });
}

async function fresh() {
  return obtainTokens(app, new Jar(app.url), alice);
}

/** Signs `claims` with the service's active key (a token the service could have issued). */
async function sign(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const jwk = app.ctx.keys.signingKeys[0]!;
  const key = await importJWK(jwk, "ES256");
  const { iss, aud, sub, jti, exp, iat, ...rest } = claims as Record<string, any>;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: "ES256", kid: jwk.kid!, typ: "at+jwt", ...header })
    .setIssuer(iss)
    .setAudience(aud)
    .setSubject(sub)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key);
}

test("a token from the token endpoint authenticates with its user, workspace, grant, client and scopes", async () => {
  const r = await fresh();
  const auth = await authenticateBearer(app.ctx, req(`Bearer ${r.tokens.access_token}`));
  const claims = decodeJwt(r.tokens.access_token);
  assert.equal(auth.userId, alice.user_id);
  assert.equal(auth.workspaceId, alice.workspace_id);
  assert.equal(auth.grantId, claims.grant_id);
  assert.equal(auth.clientId, r.client.client_id);
  assert.equal(auth.tokenId, claims.jti);
  assert.deepEqual([...auth.scopes].sort(), ["read:content", "read:profile"]);
});

test("the test shortcut's token is valid under the same rules", async () => {
  const c = await connect(app, alice, ["read:profile", "read:jobs"]);
  const auth = await authenticateBearer(app.ctx, req(`Bearer ${c.token}`));
  assert.equal(auth.grantId, c.grantId);
  assert.deepEqual([...auth.scopes], ["read:profile", "read:jobs"]);
});

test("missing, non-Bearer and query-string tokens are refused", async () => {
  const r = await fresh();
  await rejects(req(), false);
  await rejects(req(`Basic ${Buffer.from("a:b").toString("base64")}`), false);
  await rejects(req("Bearer"), true);
  await rejects(req("Bearer a b"), true);
  await rejects(req(undefined, { access_token: r.tokens.access_token }), true);
  await rejects(req(`Bearer ${r.tokens.access_token}`, { access_token: r.tokens.access_token }), true);
  const inBody = {
    headers: {},
    query: {},
    body: { access_token: r.tokens.access_token },
  } as unknown as Request;
  await rejects(inBody, true);
});

test("a revoked grant is refused immediately", async () => {
  const r = await fresh();
  await authenticateBearer(app.ctx, req(`Bearer ${r.tokens.access_token}`));
  const grantId = decodeJwt(r.tokens.access_token).grant_id as string;
  const { revokeGrant } = await import("../../src/oauth/grants.ts");
  await revokeGrant(app.ctx, grantId, "user");
  await rejects(req(`Bearer ${r.tokens.access_token}`));
});

test("a removed membership and a disabled account are refused", async () => {
  const bob = await app.user();
  const b = await connect(app, bob, ["read:profile"]);
  await authenticateBearer(app.ctx, req(`Bearer ${b.token}`));
  await app.ctx.db("memberships").where({ user_id: bob.user_id, workspace_id: bob.workspace_id }).delete();
  await rejects(req(`Bearer ${b.token}`));
  const carol = await app.user();
  const c = await connect(app, carol, ["read:profile"]);
  await app.ctx.db("users").where({ id: carol.user_id }).update({ status: "disabled" });
  await rejects(req(`Bearer ${c.token}`));
});

test("a token of a suspended or removed workspace is refused, and accepted again once it is active", async () => {
  const dave = await app.user();
  const d = await connect(app, dave, ["read:profile"]);
  await authenticateBearer(app.ctx, req(`Bearer ${d.token}`));
  for (const status of ["suspended", "removed"]) {
    await app.ctx.db("workspaces").where({ id: dave.workspace_id }).update({ status });
    await rejects(req(`Bearer ${d.token}`));
  }
  await app.ctx.db("workspaces").where({ id: dave.workspace_id }).update({ status: "active" });
  assert.equal((await authenticateBearer(app.ctx, req(`Bearer ${d.token}`))).workspaceId, dave.workspace_id);
});

test("changing the browser's selected workspace cannot retarget a token", async () => {
  const r = await fresh();
  await app.ctx
    .db("browser_sessions")
    .where({ user_id: alice.user_id })
    .update({ selected_workspace_id: null });
  const auth = await authenticateBearer(app.ctx, req(`Bearer ${r.tokens.access_token}`));
  assert.equal(auth.workspaceId, alice.workspace_id);
  // A token whose workspace claim is swapped (re-signed) no longer matches its grant.
  const other = await app.user();
  const claims = decodeJwt(r.tokens.access_token);
  const swapped = await sign({ ...claims, workspace_id: other.workspace_id });
  await rejects(req(`Bearer ${swapped}`));
});

test("a token for another audience or issuer is refused", async () => {
  const claims = decodeJwt((await fresh()).tokens.access_token);
  await rejects(req(`Bearer ${await sign({ ...claims, aud: "https://other.example/mcp" })}`));
  await rejects(req(`Bearer ${await sign({ ...claims, aud: `${app.resource}/` })}`));
  await rejects(req(`Bearer ${await sign({ ...claims, iss: "https://evil.example" })}`));
  // The untouched claims re-signed are accepted: the refusals above are for the changed claim only.
  await authenticateBearer(app.ctx, req(`Bearer ${await sign(claims)}`));
});

test("an expired token is refused (clock moved past one hour)", async () => {
  const r = await fresh();
  await authenticateBearer(app.ctx, req(`Bearer ${r.tokens.access_token}`));
  clock.advance(3601);
  await rejects(req(`Bearer ${r.tokens.access_token}`));
});

test("a tampered payload or signature, alg none, a foreign key, a wrong typ or kid are refused", async () => {
  const r = await fresh();
  const [h, p, s] = r.tokens.access_token.split(".") as [string, string, string];
  const claims = decodeJwt(r.tokens.access_token);
  const widened = Buffer.from(JSON.stringify({ ...claims, scope: "read:profile delete:content" })).toString(
    "base64url",
  );
  await rejects(req(`Bearer ${h}.${widened}.${s}`));
  const flipped = s.slice(0, 10) + (s[10] === "A" ? "B" : "A") + s.slice(11);
  await rejects(req(`Bearer ${h}.${p}.${flipped}`));
  await rejects(req(`Bearer ${h}.${p}.`));
  const none = new UnsecuredJWT(claims as Record<string, unknown>).encode();
  await rejects(req(`Bearer ${none}`));
  const noneTyped = `${Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt", kid: app.ctx.keys.signingKeys[0]!.kid })).toString("base64url")}.${p}.`;
  await rejects(req(`Bearer ${noneTyped}`));
  const { privateKey } = await generateKeyPair("ES256");
  const forged = await new SignJWT(claims as Record<string, unknown>)
    .setProtectedHeader({ alg: "ES256", kid: app.ctx.keys.signingKeys[0]!.kid!, typ: "at+jwt" })
    .sign(privateKey);
  await rejects(req(`Bearer ${forged}`));
  await rejects(req(`Bearer ${await sign(claims, { typ: "JWT" })}`));
  await rejects(req(`Bearer ${await sign(claims, { kid: "unknown-kid" })}`));
});

test("a token whose record was revoked or is unknown is refused", async () => {
  const r = await fresh();
  const claims = decodeJwt(r.tokens.access_token);
  await app.ctx
    .db("oauth_access_tokens")
    .where({ jti: claims.jti as string })
    .update({ revoked_at: clock.now() });
  await rejects(req(`Bearer ${r.tokens.access_token}`));
  await rejects(req(`Bearer ${await sign({ ...claims, jti: crypto.randomUUID() })}`));
});

test("last_used_at is written at most once a minute", async () => {
  const r = await fresh();
  const grantId = decodeJwt(r.tokens.access_token).grant_id as string;
  const lastUsed = async () =>
    (await app.ctx.db("oauth_grants").where({ id: grantId }).first("last_used_at")).last_used_at;
  assert.equal(await lastUsed(), null);
  await authenticateBearer(app.ctx, req(`Bearer ${r.tokens.access_token}`));
  const first = await lastUsed();
  assert.ok(first);
  clock.advance(30);
  await authenticateBearer(app.ctx, req(`Bearer ${r.tokens.access_token}`));
  assert.equal((await lastUsed()).getTime(), first.getTime());
  clock.advance(31);
  await authenticateBearer(app.ctx, req(`Bearer ${r.tokens.access_token}`));
  assert.ok((await lastUsed()).getTime() > first.getTime());
});

test("key rotation: a token signed by an older key in the set still verifies", async () => {
  const r = await fresh();
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const newer = { ...(await exportJWK(privateKey)), kid: "k-newer", alg: "ES256" };
  const rotated = {
    ...app.ctx,
    keys: { ...app.ctx.keys, signingKeys: [newer, ...app.ctx.keys.signingKeys] },
  };
  const auth = await authenticateBearer(rotated, req(`Bearer ${r.tokens.access_token}`));
  assert.equal(auth.userId, alice.user_id);
});
