/** Revocation endpoint (RFC 7009, service spec 3.2) and the OAuth route limits. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Request } from "express";
import { decodeJwt } from "jose";
import { authenticateBearer, BearerError } from "../../src/oauth/bearer.ts";
import { startTestApp } from "../helpers/app.ts";
import { HIGH_LIMITS, Jar, obtainTokens, register, tokenRequest } from "./support.ts";

const app = await startTestApp({ env: HIGH_LIMITS });
const limited = await startTestApp({ env: { RATE_LIMIT_OAUTH: "3" } });
const alice = await app.user();

async function revoke(base: string, fields: Record<string, string>) {
  return fetch(`${base}/mcp/oauth/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

const bearer = (t: string) =>
  ({ headers: { authorization: `Bearer ${t}` }, query: {} }) as unknown as Request;

async function assertGrantDead(r: Awaited<ReturnType<typeof obtainTokens>>) {
  const grantId = decodeJwt(r.tokens.access_token).grant_id as string;
  const grant = await app.ctx.db("oauth_grants").where({ id: grantId }).first();
  assert.ok(grant.revoked_at);
  await assert.rejects(authenticateBearer(app.ctx, bearer(r.tokens.access_token)), BearerError);
  const refreshed = await tokenRequest(app, {
    grant_type: "refresh_token",
    client_id: r.client.client_id,
    refresh_token: r.tokens.refresh_token,
    resource: app.resource,
  });
  assert.equal(refreshed.body.error, "invalid_grant");
  const live = await app.ctx.db("oauth_refresh_tokens").where({ grant_id: grantId }).whereNull("revoked_at");
  assert.equal(live.length, 0);
}

test("revoking the refresh token revokes the whole grant", async () => {
  const r = await obtainTokens(app, new Jar(app.url), alice);
  const res = await revoke(app.url, {
    token: r.tokens.refresh_token,
    client_id: r.client.client_id,
    token_type_hint: "refresh_token",
  });
  assert.equal(res.status, 200);
  await assertGrantDead(r);
});

test("revoking the access token revokes the whole grant", async () => {
  const r = await obtainTokens(app, new Jar(app.url), alice);
  const res = await revoke(app.url, { token: r.tokens.access_token, client_id: r.client.client_id });
  assert.equal(res.status, 200);
  await assertGrantDead(r);
});

test("unknown tokens get 200; another client's token is left alone; a missing client is invalid_client", async () => {
  assert.equal(
    (await revoke(app.url, { token: "nonsense", client_id: (await register(app)).client_id })).status,
    200,
  );
  const r = await obtainTokens(app, new Jar(app.url), alice);
  const other = await register(app);
  assert.equal(
    (await revoke(app.url, { token: r.tokens.refresh_token, client_id: other.client_id })).status,
    200,
  );
  await authenticateBearer(app.ctx, bearer(r.tokens.access_token));
  const noClient = await revoke(app.url, { token: r.tokens.refresh_token });
  assert.equal(noClient.status, 401);
  assert.equal(((await noClient.json()) as { error: string }).error, "invalid_client");
  const noToken = await revoke(app.url, { client_id: r.client.client_id });
  assert.equal(((await noToken.json()) as { error: string }).error, "invalid_request");
});

test("OAuth routes are throttled per IP with 429 and Retry-After", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${limited.url}/mcp/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token",
    });
    statuses.push(res.status);
    if (res.status === 429) assert.ok(Number(res.headers.get("retry-after")) >= 1);
    await res.body?.cancel();
  }
  assert.deepEqual(statuses, [400, 400, 400, 429, 429]);
});
