/** Dynamic client registration (RFC 7591, RFC 8252, service spec 2.2). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({
  env: { RATE_LIMIT_OAUTH: "100000", RATE_LIMIT_REGISTER: "100000", RATE_LIMIT_REGISTER_IP_HOUR: "499" },
});
const limited = await startTestApp({ env: { RATE_LIMIT_REGISTER: "3" } });

async function post(base: string, body: unknown, contentType = "application/json") {
  const res = await fetch(`${base}/mcp/oauth/register`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

test("a public client is registered with no secret and auth method none", async () => {
  const r = await post(app.url, {
    client_name: "Agent",
    redirect_uris: [
      "https://agent.example/cb",
      "http://127.0.0.1/cb",
      "http://localhost:8080/cb",
      "http://[::1]:9/cb",
    ],
    token_endpoint_auth_method: "none",
    application_type: "native",
    scope: "read:profile",
  });
  assert.equal(r.status, 201);
  assert.equal(r.headers.get("cache-control"), "no-store");
  assert.match(r.body.client_id, /^[0-9a-f-]{36}$/);
  assert.equal(r.body.client_secret, undefined);
  assert.equal(r.body.token_endpoint_auth_method, "none");
  assert.deepEqual(r.body.grant_types, ["authorization_code", "refresh_token"]);
  assert.deepEqual(r.body.response_types, ["code"]);
  assert.equal(r.body.client_name, "Agent");
  assert.equal(r.body.application_type, "native");
  const row = await app.ctx.db("oauth_clients").where({ client_id: r.body.client_id }).first();
  assert.equal(row.token_endpoint_auth_method, "none");
  assert.equal(row.redirect_uris.length, 4);
});

test("each bad redirect URI form is refused with invalid_redirect_uri naming the field", async () => {
  const bad = [
    "http://agent.example/cb", // plain HTTP off loopback
    "https://agent.example/cb#frag", // fragment
    "https://user:pw@agent.example/cb", // user info
    "https://user@agent.example/cb", // user info without password
    "https://*.agent.example/cb", // wildcard host
    "https://agent.example/*", // wildcard path
    "http://0.0.0.0:8080/cb", // unspecified address
    "https://0.0.0.0/cb",
    "http://localhost.evil.example/cb", // not loopback
    "http://127.0.0.1.evil.example/cb",
    "javascript:alert(1)", // other schemes
    "com.example.app:/callback",
    "file:///etc/passwd",
    "/relative/cb", // not absolute
    "https://agent.example/c b", // whitespace
    "",
  ];
  for (const uri of bad) {
    const r = await post(app.url, { redirect_uris: ["https://ok.example/cb", uri] });
    assert.equal(r.status, 400, uri);
    assert.equal(r.body.error, "invalid_redirect_uri", uri);
    assert.match(r.body.error_description, /redirect_uris\[1\]/, uri);
  }
});

test("redirect_uris must hold 1 to 10 strings", async () => {
  for (const uris of [
    undefined,
    [],
    "https://a.example/cb",
    [1],
    Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`),
  ]) {
    const r = await post(app.url, { redirect_uris: uris });
    assert.equal(r.status, 400, JSON.stringify(uris));
    assert.equal(r.body.error, "invalid_redirect_uri");
  }
  const ten = await post(app.url, {
    redirect_uris: Array.from({ length: 10 }, (_, i) => `https://a.example/${i}`),
  });
  assert.equal(ten.status, 201);
});

test("grant_types, response_types and other metadata are validated", async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ grant_types: ["client_credentials"] }, "grant_types"],
    [{ grant_types: ["authorization_code", "implicit"] }, "grant_types"],
    [{ grant_types: ["refresh_token"] }, "grant_types"],
    [{ response_types: ["token"] }, "response_types"],
    [{ response_types: ["code", "token"] }, "response_types"],
    [{ client_name: 42 }, "client_name"],
    [{ application_type: "desktop" }, "application_type"],
    // RFC 7591 section 2: an auth method the server does not support is refused, never registered as none.
    [{ token_endpoint_auth_method: "client_secret_basic" }, "token_endpoint_auth_method"],
    [{ token_endpoint_auth_method: "client_secret_post" }, "token_endpoint_auth_method"],
    [{ token_endpoint_auth_method: "private_key_jwt" }, "token_endpoint_auth_method"],
    [{ token_endpoint_auth_method: 1 }, "token_endpoint_auth_method"],
  ];
  for (const [extra, field] of cases) {
    const r = await post(app.url, { redirect_uris: ["https://a.example/cb"], ...extra });
    assert.equal(r.status, 400, field);
    assert.equal(r.body.error, "invalid_client_metadata", field);
    assert.match(r.body.error_description, new RegExp(field));
  }
  const notJson = await post(app.url, "{not json");
  assert.equal(notJson.status, 400);
  assert.equal(notJson.body.error, "invalid_client_metadata");
  const form = await post(app.url, "redirect_uris=https://a.example/cb", "application/x-www-form-urlencoded");
  assert.equal(form.body.error, "invalid_client_metadata");
  const array = await post(app.url, [{ redirect_uris: ["https://a.example/cb"] }]);
  assert.equal(array.body.error, "invalid_client_metadata");
  const before = Number((await app.ctx.db("oauth_clients").count({ n: "*" }).first())!.n);
  await post(app.url, {
    redirect_uris: ["https://a.example/cb"],
    token_endpoint_auth_method: "client_secret_basic",
  });
  const after = Number((await app.ctx.db("oauth_clients").count({ n: "*" }).first())!.n);
  assert.equal(after, before, "a refused registration stores nothing");
});

test("registration is throttled per IP with 429 and Retry-After", async () => {
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${limited.url}/mcp/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["https://a.example/cb"] }),
    });
    statuses.push(res.status);
    if (res.status === 429) retryAfter = res.headers.get("retry-after");
    await res.body?.cancel();
  }
  assert.deepEqual(statuses, [201, 201, 201, 429, 429]);
  assert.ok(Number(retryAfter) >= 1);
});
