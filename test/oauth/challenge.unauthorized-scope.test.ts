/**
 * The live 401 challenge of POST /mcp carries `scope` (spec/mcp-protocol.md "Authorization": 401
 * `WWW-Authenticate: Bearer resource_metadata="<PRM URL>"` + `scope="..."`; RFC 6750 section 3), parsed the
 * way the official SDK client parses it, and the scopes equal the PRM `scopes_supported`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp();

async function postMcp(headers: Record<string, string>): Promise<Response> {
  return fetch(app.resource, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
      ...headers,
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
}

test("401 without a token names resource_metadata and scope (no error code)", async () => {
  const prm = (await (await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`)).json()) as {
    scopes_supported: string[];
  };
  const res = await postMcp({});
  assert.equal(res.status, 401);
  const header = res.headers.get("www-authenticate") ?? "";
  assert.match(header, /^Bearer /);
  assert.doesNotMatch(header, /error=/);
  const params = extractWWWAuthenticateParams(res);
  assert.equal(params.resourceMetadataUrl?.href, `${app.url}/.well-known/oauth-protected-resource/mcp`);
  assert.ok(params.scope, "the challenge carries a scope parameter");
  assert.deepEqual(params.scope.split(" "), prm.scopes_supported);
  assert.ok(!params.scope.split(" ").includes("offline_access"));
});

test("401 with an invalid token adds error=invalid_token and keeps scope", async () => {
  const res = await postMcp({ authorization: "Bearer not-a-token" });
  assert.equal(res.status, 401);
  const params = extractWWWAuthenticateParams(res);
  assert.equal(params.error, "invalid_token");
  assert.ok(params.scope?.split(" ").includes("read:jobs"));
  assert.ok(params.resourceMetadataUrl);
});
