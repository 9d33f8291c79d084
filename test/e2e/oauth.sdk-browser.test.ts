/**
 * End to end: the official MCP SDK client's OAuth flow (discovery from the 401
 * challenge or the protected resource metadata, dynamic registration, PKCE S256, resource indicator)
 * through real headless Chromium that signs in, picks a workspace and approves; the client then holds
 * tokens that authenticate, refreshes them (rotation), and the old refresh token is refused.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Request } from "express";
import { decodeJwt } from "jose";
import { addMember } from "../../src/domain/account/accounts.ts";
import { authenticateBearer } from "../../src/oauth/bearer.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser, requireChromium } from "../helpers/browser.ts";
import { authorizeThroughBrowser, refreshThroughSdk } from "../helpers/oauth-flow.ts";

requireChromium();
const app = await startTestApp();
const browser = await launchBrowser();

const bearer = (token: string) =>
  ({ headers: { authorization: `Bearer ${token}` }, query: {} }) as unknown as Request;

test("SDK client + Chromium: discovery, registration, login, workspace choice, approval, tokens, refresh", async () => {
  const owner = await app.user({ workspace: "Acme" });
  const member = await app.user({ workspace: "Personal" });
  // The member belongs to two workspaces and picks the shared one.
  await addMember(app.ctx.db, owner.workspace_id, member.email);
  const { provider, tokens, callback, resourceMetadataUrl } = await authorizeThroughBrowser(app, browser, {
    email: member.email,
    password: member.password,
    workspace_id: owner.workspace_id,
  });
  assert.equal(callback.searchParams.get("iss"), app.ctx.config.issuerUrl);
  // Once POST /mcp answers 401, discovery starts from its challenge, which must name the PRM URL.
  if (resourceMetadataUrl)
    assert.equal(resourceMetadataUrl.href, `${app.url}/.well-known/oauth-protected-resource/mcp`);
  assert.ok(provider.client?.client_id, "the SDK registered a client");
  assert.equal(tokens.token_type, "Bearer");
  assert.equal(tokens.expires_in, 3600);
  assert.ok(tokens.refresh_token);
  // The SDK asked for the metadata's scopes_supported; all were granted.
  assert.deepEqual(tokens.scope?.split(" "), [...ALL_SCOPES]);
  const claims = decodeJwt(tokens.access_token);
  assert.equal(claims.aud, app.resource);
  assert.equal(claims.workspace_id, owner.workspace_id);
  assert.equal(claims.sub, member.user_id);

  const auth = await authenticateBearer(app.ctx, bearer(tokens.access_token));
  assert.equal(auth.userId, member.user_id);
  assert.equal(auth.workspaceId, owner.workspace_id);
  assert.equal(auth.clientId, provider.client?.client_id);
  assert.ok(auth.scopes.has("read:jobs"));

  const oldRefresh = tokens.refresh_token!;
  const refreshed = await refreshThroughSdk(app, provider);
  assert.notEqual(refreshed.access_token, tokens.access_token);
  assert.notEqual(refreshed.refresh_token, oldRefresh);
  const again = await authenticateBearer(app.ctx, bearer(refreshed.access_token));
  assert.equal(again.grantId, auth.grantId);

  const replay = await fetch(`${app.url}/mcp/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      client_id: provider.client!.client_id,
      refresh_token: oldRefresh,
      resource: app.resource,
    }),
  });
  assert.equal(replay.status, 400);
  assert.equal(((await replay.json()) as { error: string }).error, "invalid_grant");
});

test("SDK client with an explicit narrower scope gets exactly that scope (offline_access ignored)", async () => {
  const user = await app.user();
  const { tokens } = await authorizeThroughBrowser(app, browser, user, {
    scope: "read:profile read:jobs offline_access",
  });
  assert.equal(tokens.scope, "read:profile read:jobs");
});
