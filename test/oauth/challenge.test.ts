/** WWW-Authenticate challenges for the MCP endpoint (RFC 6750 3, RFC 9728 5.1). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../src/config/index.ts";
import type { AppContext } from "../../src/context.ts";
import { challenge401, challenge403, resourceMetadataUrl } from "../../src/oauth/challenge.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";

const ctx = { config: loadConfig({ PUBLIC_BASE_URL: "https://svc.example" }) } as unknown as AppContext;

test("the 401 challenge names the path-suffixed PRM URL and the scopes, with invalid_token only when a token was sent", () => {
  assert.equal(resourceMetadataUrl(ctx), "https://svc.example/.well-known/oauth-protected-resource/mcp");
  const scope = ALL_SCOPES.join(" ");
  assert.equal(
    challenge401(ctx, false),
    `Bearer resource_metadata="https://svc.example/.well-known/oauth-protected-resource/mcp", scope="${scope}"`,
  );
  assert.equal(
    challenge401(ctx, true),
    `Bearer resource_metadata="https://svc.example/.well-known/oauth-protected-resource/mcp", scope="${scope}", error="invalid_token"`,
  );
});

test("the 403 challenge carries insufficient_scope, every needed scope and the PRM URL", () => {
  const v = challenge403(ctx, ["read:jobs", "read:content"]);
  assert.match(
    v,
    /^Bearer error="insufficient_scope", scope="read:jobs read:content", resource_metadata="https:\/\/svc\.example\/\.well-known\/oauth-protected-resource\/mcp", error_description="[^"]+"$/,
  );
});

test("a resource URL with another path gives the matching PRM URL", () => {
  const other = {
    config: loadConfig({
      PUBLIC_BASE_URL: "https://svc.example",
      MCP_RESOURCE_URL: "https://svc.example/api/mcp",
    }),
  } as unknown as AppContext;
  assert.equal(
    resourceMetadataUrl(other),
    "https://svc.example/.well-known/oauth-protected-resource/api/mcp",
  );
});
