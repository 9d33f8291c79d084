/**
 * End to end: the official MCP SDK client, authorized through the real OAuth flow,
 * calls the review tool `delete_post`; headless Chromium follows `approval_url` as the owner (login, then
 * the approval page) and approves; the client polls `get_job_status` until `succeeded`, and the post is
 * gone. A real pg-boss worker runs the approved operation.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser, openSignedIn, requireChromium } from "../helpers/browser.ts";
import { authorizeThroughBrowser } from "../helpers/oauth-flow.ts";

requireChromium();

const app = await startTestApp({ worker: true });
const browser = await launchBrowser();

interface Structured {
  status: string;
  operation_id?: string;
  approval_url?: string;
  data?: { status?: string; result?: Record<string, unknown>; error?: unknown };
  error?: { code: string };
}

test("SDK client -> delete_post -> approval in Chromium -> get_job_status succeeded", async () => {
  const owner = await app.user();
  const caption = `Summer sale <b>50%</b> off ${randomUUID().slice(0, 8)}`;
  const [post] = await app.ctx
    .db("posts")
    .insert({
      user_id: owner.user_id,
      workspace_id: owner.workspace_id,
      type: "text",
      status: "draft",
      caption,
    })
    .returning("id");
  const { provider } = await authorizeThroughBrowser(app, browser, owner, {
    scope: "read:content delete:content read:jobs",
  });

  const client = new Client({ name: "approval-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(app.resource), { authProvider: provider }));
  try {
    const called = await client.callTool({
      name: "delete_post",
      arguments: { post_id: post.id, idempotency_key: randomUUID() },
    });
    assert.equal(called.isError, undefined);
    const env = called.structuredContent as Structured;
    assert.equal(env.status, "approval_required");
    assert.ok(env.operation_id && env.approval_url);
    assert.equal(env.approval_url, `${app.url}/settings/integrations/mcp/requests/${env.operation_id}`);

    const pending = (
      await client.callTool({ name: "get_job_status", arguments: { operation_id: env.operation_id } })
    ).structuredContent as Structured;
    assert.equal(pending.status, "succeeded");
    assert.equal(pending.data?.status, "approval_required");

    // The owner follows the URL in a browser: login first (new browser context), then the approval page.
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await openSignedIn(page, env.approval_url, owner);
      const body = (await page.textContent("body")) ?? "";
      assert.ok(body.includes(caption.slice(0, 20)), "the post is labelled by its caption, as text");
      assert.equal(await page.locator("b").count(), 0, "the caption's markup is inert");
      await Promise.all([
        page.waitForURL((u) => u.searchParams.get("result") === "approved"),
        page.click('button[name="decision"][value="approve"]'),
      ]);
    } finally {
      await context.close();
    }

    // Poll like an agent: about 2 s first, then every few seconds (shortened here), bounded.
    let status: Structured | undefined;
    for (let i = 0; i < 60; i += 1) {
      await new Promise((r) => setTimeout(r, i === 0 ? 500 : 250));
      status = (
        await client.callTool({ name: "get_job_status", arguments: { operation_id: env.operation_id } })
      ).structuredContent as Structured;
      if (!["approved", "queued", "running"].includes(String(status.data?.status))) break;
    }
    assert.equal(status?.data?.status, "succeeded", JSON.stringify(status));
    assert.equal(status?.data?.result?.post_id, post.id);
    const row = await app.ctx.db("posts").where({ id: post.id }).first("deleted_at");
    assert.ok(row.deleted_at, "the post was deleted once approved");
  } finally {
    await client.close();
  }
});
