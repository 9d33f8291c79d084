/**
 * Token endpoint and the client's registered `grant_types` (RFC 7591 section 2, RFC 6749 sections 5.1
 * and 5.2): a client registered without `refresh_token` gets an access token only, no refresh token is
 * stored for it, and it cannot use the refresh grant; a client registered with it still gets a pair.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeJwt } from "jose";
import { startTestApp } from "../helpers/app.ts";
import { exchange, HIGH_LIMITS, Jar, obtainCode, register, tokenRequest } from "./support.ts";

const app = await startTestApp({ env: HIGH_LIMITS });
const alice = await app.user();
const jar = new Jar(app.url);

async function refreshRows(grantId: string): Promise<number> {
  const [row] = await app.ctx.db("oauth_refresh_tokens").where({ grant_id: grantId }).count({ n: "*" });
  return Number(row?.n ?? 0);
}

test("a client registered with grant_types [authorization_code] receives no refresh token", async () => {
  const client = await register(app, { grant_types: ["authorization_code"] });
  assert.deepEqual((client as unknown as { grant_types: string[] }).grant_types, ["authorization_code"]);
  const r = await obtainCode(app, jar, alice, { client });
  const t = await exchange(app, r);
  assert.equal(t.status, 200);
  assert.equal(t.headers.get("cache-control"), "no-store");
  assert.equal(t.body.token_type, "Bearer");
  assert.equal(t.body.expires_in, 3600);
  assert.equal(t.body.scope, "read:profile read:content");
  assert.equal(typeof t.body.access_token, "string");
  assert.equal(Object.hasOwn(t.body, "refresh_token"), false, "no refresh_token member at all");
  const grantId = decodeJwt(t.body.access_token).grant_id as string;
  assert.equal(await refreshRows(grantId), 0, "no refresh token is stored for the grant");

  // The access token works on the MCP endpoint (the grant itself is fine).
  const me = await fetch(`${app.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${t.body.access_token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  assert.equal(me.status, 200);
});

test("such a client cannot use the refresh_token grant (unauthorized_client)", async () => {
  const client = await register(app, { grant_types: ["authorization_code"] });
  const r = await obtainCode(app, jar, alice, { client });
  assert.equal((await exchange(app, r)).status, 200);
  const t = await tokenRequest(app, {
    grant_type: "refresh_token",
    client_id: client.client_id,
    refresh_token: "A".repeat(43),
    resource: app.resource,
  });
  assert.equal(t.status, 400);
  assert.equal(t.body.error, "unauthorized_client");
});

test("a client registered with refresh_token (explicitly or by default) still gets a rotating pair", async () => {
  for (const body of [{ grant_types: ["authorization_code", "refresh_token"] }, {}]) {
    const client = await register(app, body);
    const r = await obtainCode(app, jar, alice, { client });
    const t = await exchange(app, r);
    assert.equal(t.status, 200);
    assert.match(t.body.refresh_token, /^[A-Za-z0-9_-]{43}$/);
    const grantId = decodeJwt(t.body.access_token).grant_id as string;
    assert.equal(await refreshRows(grantId), 1);
    const next = await tokenRequest(app, {
      grant_type: "refresh_token",
      client_id: client.client_id,
      refresh_token: t.body.refresh_token,
      resource: app.resource,
    });
    assert.equal(next.status, 200);
    assert.match(next.body.refresh_token, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(next.body.refresh_token, t.body.refresh_token);
  }
});
