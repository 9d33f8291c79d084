/**
 * Two `serve` and two `worker` processes of the real CLI on one PostgreSQL and one S3 store (s3rver), behind
 * a round-robin proxy (README "Running more than one instance"). The official MCP SDK client completes the
 * whole flow (OAuth in headless Chromium, create_product, generate_carousel, approve_carousel approved in
 * the browser, publish_post to a sandbox account approved in the browser, get_job_status, list_deliveries)
 * while every MCP request goes to the other server than the one before, and browser requests alternate too.
 * Nothing in any process may be needed by another: this passes only if all state is shared.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser } from "playwright-core";
import { createUser } from "../../src/domain/account/accounts.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { connectSocialAccount } from "../../src/domain/social/accounts.ts";
import { launchBrowser, requireChromium } from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { authorizeThroughBrowser } from "../helpers/oauth-flow.ts";
import { startCluster } from "./cluster.ts";

requireChromium();

interface Envelope {
  status: string;
  operation_id?: string;
  approval_url?: string;
  data: Record<string, any>;
  error?: { code: string; message: string };
}

const database = await freshDatabase({ autoDrop: false });
const cluster = await startCluster({ databaseUrl: database.url, db: database.db, servers: 2, workers: 2 });
const browser: Browser = await launchBrowser();
after(async () => {
  await browser.close();
  await cluster.stop();
  await database.drop();
});

/** The owner approves `url` in a fresh browser context (login first); resolves when the page says so. */
async function approveInBrowser(url: string, who: { email: string; password: string }): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    if (new URL(page.url()).pathname === "/login") {
      await page.fill('input[name="email"]', who.email);
      await page.fill('input[name="password"]', who.password);
      await Promise.all([
        page.waitForURL((u) => u.pathname !== "/login"),
        page.click('button[type="submit"]'),
      ]);
    }
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get("result") === "approved"),
      page.click('button[name="decision"][value="approve"]'),
    ]);
  } finally {
    await context.close();
  }
}

test("2 servers + 2 workers: the full flow with every MCP request on the other server", async () => {
  const email = `scale-${randomUUID().slice(0, 8)}@example.test`;
  const password = "correct horse battery staple";
  const ids = await createUser(database.db, { email, password, workspace: "Scale", plan: "pro" });
  await grantCredits(database.db, ids.user_id, 500, "test:grant");
  const account = await connectSocialAccount(
    database.db,
    undefined,
    { userId: ids.user_id, workspaceId: ids.workspace_id },
    { network: "instagram", displayName: "Scale shop", handle: "scaleshop" },
  );
  const owner = { email, password, workspace_id: ids.workspace_id };

  const { provider } = await authorizeThroughBrowser(cluster, browser, owner, {
    scope:
      "read:products create:products read:content create:carousels manage:carousels publish:content read:schedules read:social_accounts read:jobs",
  });
  const client = new Client({ name: "scale-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(cluster.resource), { authProvider: provider }),
  );
  const call = async (name: string, args: Record<string, unknown>): Promise<Envelope> => {
    const result = await client.callTool({ name, arguments: args });
    const env = result.structuredContent as Envelope;
    assert.equal(result.isError, undefined, `${name}: ${JSON.stringify(env?.error)}`);
    return env;
  };
  const poll = async (name: string, args: Record<string, unknown>, done: (e: Envelope) => boolean) => {
    let env: Envelope | undefined;
    for (let i = 0; i < 240; i += 1) {
      env = await call(name, args);
      if (done(env)) return env;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.fail(`${name} did not finish: ${JSON.stringify(env)}`);
  };
  const awaitJob = (operationId: string) =>
    poll("get_job_status", { operation_id: operationId }, (e) =>
      ["succeeded", "failed", "denied", "outcome_unknown"].includes(String(e.data.status)),
    );

  try {
    const formats = await call("list_carousel_formats", {});
    const design = (formats.data.designs as Array<{ design_id: string; slide_counts: number[] }>).find((d) =>
      d.slide_counts.includes(6),
    );
    assert.ok(design, "a design with 6 slides");
    const product = await call("create_product", {
      name: "Trail running shoes",
      description: "Light, grippy and made for long days on rough ground.",
      price: 129,
      currency: "EUR",
      idempotency_key: randomUUID(),
    });
    const productId = product.data.product_id as string;

    const generated = await call("generate_carousel", {
      product_id: productId,
      slide_count: 6,
      design_id: design.design_id,
      idempotency_key: randomUUID(),
    });
    assert.equal(generated.status, "queued");
    const postId = generated.data.post_id as string;
    const carousel = await poll("get_carousel", { post_id: postId }, (e) =>
      ["succeeded", "failed"].includes(String(e.data.run?.status)),
    );
    assert.equal(carousel.data.run?.status, "succeeded", JSON.stringify(carousel.data));
    assert.equal(
      (carousel.data.slides as Array<{ status: string }>).filter((s) => s.status === "ready").length,
      6,
    );

    const approval = await call("approve_carousel", { post_id: postId, idempotency_key: randomUUID() });
    assert.equal(approval.status, "approval_required");
    await approveInBrowser(approval.approval_url!, owner);
    assert.equal((await awaitJob(approval.operation_id!)).data.status, "succeeded");

    const publish = await call("publish_post", {
      post_id: postId,
      social_account_ids: [account.social_account_id],
      idempotency_key: randomUUID(),
    });
    assert.equal(publish.status, "approval_required");
    await approveInBrowser(publish.approval_url!, owner);
    assert.equal((await awaitJob(publish.operation_id!)).data.status, "succeeded");
    const deliveries = await poll("list_deliveries", { post_id: postId }, (e) =>
      (e.data.items as Array<{ status: string }>).every((d) => ["published", "failed"].includes(d.status)),
    );
    const [delivery] = deliveries.data.items as Array<{ status: string; post_url: string | null }>;
    assert.equal(delivery?.status, "published");
    assert.ok(delivery?.post_url);
  } finally {
    await client.close();
  }

  const mcp = cluster.served.filter((s) => s.path === "/mcp");
  assert.ok(mcp.length >= 10, `at least 10 MCP requests (${mcp.length})`);
  for (let i = 1; i < mcp.length; i += 1) {
    assert.notEqual(mcp[i]!.backend, mcp[i - 1]!.backend, "each MCP request lands on the other server");
  }
  const web = cluster.served.filter((s) => s.path !== "/mcp");
  assert.ok(new Set(web.map((s) => s.backend)).size === 2, "browser and OAuth requests reached both servers");
  const ran = cluster.processes.filter(
    (p) => p.role === "worker" && p.lines.some((l) => l.includes("operation running")),
  );
  assert.ok(ran.length >= 1, "the workers ran the operations");
  assert.ok(
    cluster.processes
      .filter((p) => p.role === "serve")
      .every((p) => p.lines.every((l) => !l.includes("operation running"))),
    "no server ran an operation (serve is HTTP only)",
  );
});
