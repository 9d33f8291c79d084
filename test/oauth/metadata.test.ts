/** Discovery documents (RFC 9728, RFC 8414, RFC 9207) and the 404 guard. */
import assert from "node:assert/strict";
import http from "node:http";
import { test } from "node:test";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ env: { CORS_ALLOWED_ORIGINS: "https://agent.example" } });
const disabled = await startTestApp({ env: { MCP_ENABLED: "false" } });

/** GET with an explicit Host header (fetch does not let tests forge it). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
  });
}

test("protected resource metadata names the exact resource, the issuer and the scopes", async () => {
  for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
    const res = await fetch(`${app.url}${path}`);
    assert.equal(res.status, 200, path);
    const body = (await res.json()) as Record<string, any>;
    assert.equal(body.resource, app.resource);
    assert.deepEqual(body.authorization_servers, [app.ctx.config.issuerUrl]);
    assert.deepEqual(body.bearer_methods_supported, ["header"]);
    assert.ok(body.scopes_supported.includes("read:jobs"));
    assert.ok(!body.scopes_supported.includes("offline_access"));
  }
});

test("authorization server metadata follows RFC 8414 and advertises no CIMD", async () => {
  const res = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
  assert.equal(res.status, 200);
  const m = (await res.json()) as Record<string, any>;
  assert.equal(m.issuer, app.ctx.config.issuerUrl);
  assert.equal(m.authorization_endpoint, `${app.url}/mcp/oauth/authorize`);
  assert.equal(m.token_endpoint, `${app.url}/mcp/oauth/token`);
  assert.equal(m.registration_endpoint, `${app.url}/mcp/oauth/register`);
  assert.equal(m.revocation_endpoint, `${app.url}/mcp/oauth/revoke`);
  assert.deepEqual(m.response_types_supported, ["code"]);
  assert.deepEqual(m.grant_types_supported, ["authorization_code", "refresh_token"]);
  assert.deepEqual(m.code_challenge_methods_supported, ["S256"]);
  assert.deepEqual(m.token_endpoint_auth_methods_supported, ["none"]);
  assert.equal(m.authorization_response_iss_parameter_supported, true);
  assert.ok(Array.isArray(m.scopes_supported));
  assert.equal(m.client_id_metadata_document_supported, undefined);
});

test("the JWK set holds public keys only", async () => {
  const res = await fetch(`${app.url}/mcp/oauth/jwks.json`);
  const jwks = (await res.json()) as { keys: Array<Record<string, unknown>> };
  assert.equal(jwks.keys.length, app.ctx.keys.signingKeys.length);
  for (const k of jwks.keys) {
    assert.equal(k.d, undefined);
    assert.equal(k.kty, "EC");
    assert.ok(k.kid);
  }
});

test("CORS headers only for allowlisted origins, never credentials", async () => {
  const ok = await fetch(`${app.url}/.well-known/oauth-authorization-server`, {
    headers: { origin: "https://agent.example" },
  });
  assert.equal(ok.headers.get("access-control-allow-origin"), "https://agent.example");
  assert.equal(ok.headers.get("access-control-allow-credentials"), null);
  const other = await fetch(`${app.url}/.well-known/oauth-authorization-server`, {
    headers: { origin: "https://evil.example" },
  });
  assert.equal(other.headers.get("access-control-allow-origin"), null);
});

test("metadata and OAuth routes are 404 when MCP is disabled", async () => {
  for (const path of [
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server",
    "/mcp/oauth/jwks.json",
    "/mcp/oauth/authorize?client_id=x",
  ]) {
    const res = await fetch(`${disabled.url}${path}`);
    assert.equal(res.status, 404, path);
  }
  const token = await fetch(`${disabled.url}/mcp/oauth/token`, { method: "POST" });
  assert.equal(token.status, 404);
  const reg = await fetch(`${disabled.url}/mcp/oauth/register`, { method: "POST" });
  assert.equal(reg.status, 404);
});

test("metadata and OAuth routes are 404 for a foreign Host (DNS rebinding)", async () => {
  const port = new URL(app.url).port;
  const url = `${app.url}/.well-known/oauth-authorization-server`;
  assert.equal(await getWithHost(url, `127.0.0.1:${port}`), 200);
  assert.equal(await getWithHost(url, `evil.example:${port}`), 404);
  assert.equal(await getWithHost(url, "127.0.0.1"), 404);
  assert.equal(
    await getWithHost(`${app.url}/.well-known/oauth-protected-resource/mcp`, "attacker.test"),
    404,
  );
  assert.equal(await getWithHost(`${app.url}/mcp/oauth/authorize`, "attacker.test"), 404);
});
