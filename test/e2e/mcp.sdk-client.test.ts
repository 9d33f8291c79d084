/**
 * End to end with real clients: the official MCP SDK client (Client + StreamableHTTPClientTransport, which
 * speaks the legacy 2025-11-25 handshake) after the real OAuth flow (SDK discovery, registration, PKCE;
 * headless Chromium login, workspace choice and consent). It lists the tools and calls get_profile and
 * get_workspace, and gets back the user and the workspace chosen at consent (not the user's own).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addMember } from "../../src/domain/account/accounts.ts";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser, requireChromium } from "../helpers/browser.ts";
import { mcpSchemaErrors } from "../helpers/mcp-schema.ts";
import { authorizeThroughBrowser } from "../helpers/oauth-flow.ts";

requireChromium();

const app = await startTestApp({ queue: false });
const browser = await launchBrowser();

test("the SDK client lists tools and reads the profile and the workspace chosen at consent", async () => {
  const user = await app.user({ displayName: "Ada" });
  const other = await app.user();
  await addMember(app.ctx.db, other.workspace_id, user.email);
  const chosen = { ...user, workspace_id: other.workspace_id };
  const { provider } = await authorizeThroughBrowser(app, browser, chosen, {
    scope: "read:profile read:workspace",
  });

  const client = new Client({ name: "sdk-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(app.resource), { authProvider: provider });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "social-mcp");
    const listed = await client.listTools();
    const names = listed.tools.map((t) => t.name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes("get_profile") && names.includes("get_workspace"));
    assert.ok(!names.includes("get_job_status"), "read:jobs was not granted");
    for (const tool of listed.tools) assert.deepEqual(mcpSchemaErrors("2025-11-25", "Tool", tool), []);

    const profile = await client.callTool({ name: "get_profile", arguments: {} });
    assert.deepEqual(mcpSchemaErrors("2025-11-25", "CallToolResult", profile), []);
    assert.equal(profile.isError, undefined);
    const p = profile.structuredContent as {
      status: string;
      data: { user_id: string; email: string; plan: string };
    };
    assert.equal(p.status, "succeeded");
    assert.equal(p.data.user_id, user.user_id);
    assert.equal(p.data.email, user.email);
    assert.equal(p.data.plan, "creator");

    const workspace = await client.callTool({ name: "get_workspace", arguments: {} });
    const w = workspace.structuredContent as { data: { workspace_id: string; role: string } };
    assert.equal(w.data.workspace_id, other.workspace_id);
    assert.notEqual(w.data.workspace_id, user.workspace_id);
    assert.equal(w.data.role, "member");
  } finally {
    await client.close();
  }
});
