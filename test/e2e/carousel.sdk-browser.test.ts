/**
 * End to end (service spec 1.7, 3.1, 4.4): the official MCP SDK client, authorized through the real OAuth
 * flow, generates a carousel for a product with an uploaded photo; the operation hands the run to a render
 * job and a real pg-boss worker renders the slides (polled with get_carousel); approve_carousel's page, opened as the owner in headless Chromium, shows every slide (the img
 * elements load real JPEGs) and the approval moves the post to `approved`. A second request is made stale
 * by regenerating a slide's copy before the decision: approving it is refused and nothing changes.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser } from "playwright-core";
import sharp from "sharp";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser, requireChromium } from "../helpers/browser.ts";
import { authorizeThroughBrowser } from "../helpers/oauth-flow.ts";

requireChromium();

const app = await startTestApp({ worker: true });
const browser: Browser = await launchBrowser();

interface Envelope {
  status: string;
  operation_id?: string;
  approval_url?: string;
  data?: any;
  error?: { code: string; message: string };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Envelope> {
  const out = await client.callTool({ name, arguments: args });
  return out.structuredContent as Envelope;
}

/** Polls get_job_status like an agent until the operation leaves approved/queued/running. */
async function settle(client: Client, operationId: string): Promise<Envelope> {
  let status: Envelope | undefined;
  for (let i = 0; i < 240; i += 1) {
    await new Promise((r) => setTimeout(r, i === 0 ? 500 : 500));
    status = await call(client, "get_job_status", { operation_id: operationId });
    if (!["approved", "queued", "running"].includes(String(status.data?.status))) break;
  }
  return status!;
}

/** Polls get_carousel like an agent until the latest run is finished (the render is its own job). */
async function rendered(client: Client, postId: string): Promise<Envelope> {
  let view: Envelope | undefined;
  for (let i = 0; i < 240; i += 1) {
    await new Promise((r) => setTimeout(r, 500));
    view = await call(client, "get_carousel", { post_id: postId });
    if (["succeeded", "failed"].includes(String(view.data?.run?.status))) break;
  }
  return view!;
}

/** Logs in as `owner` in a fresh context, opens `url` and returns the page (caller closes the context). */
async function openAsOwner(url: string, owner: { email: string; password: string }) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.fill('input[name="email"]', owner.email);
  await page.fill('input[name="password"]', owner.password);
  await Promise.all([
    page.waitForURL((u) => u.pathname === new URL(url).pathname),
    page.click('button[type="submit"]'),
  ]);
  return { context, page };
}

test("product -> generate_carousel -> slides ready -> approval page shows the slides in Chromium -> approved", async () => {
  const owner = await app.user();
  await grantCredits(app.ctx.db, owner.user_id, 500, "test:grant");
  // The product's photo: an uploaded image stored through the media storage.
  const photo = await sharp({ create: { width: 800, height: 800, channels: 3, background: "#f4e3c3" } })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="800"><rect x="300" y="200" width="200" height="460" rx="40" fill="#e0703a"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const storageKey = app.ctx.providers.storage.newKey("png");
  await app.ctx.providers.storage.putBytes(storageKey, photo);
  const [asset] = await app.ctx
    .db("media_assets")
    .insert({
      user_id: owner.user_id,
      workspace_id: owner.workspace_id,
      kind: "image",
      mime_type: "image/png",
      bytes: photo.length,
      width: 800,
      height: 800,
      storage_key: storageKey,
      title: "Glow Serum bottle",
    })
    .returning("id");
  const [product] = await app.ctx
    .db("products")
    .insert({
      user_id: owner.user_id,
      workspace_id: owner.workspace_id,
      name: "Glow Serum",
      description: "A vitamin C serum for brighter skin. Absorbs in seconds. Fragrance free.",
      brand: "Lumen",
      price_minor: 2900,
      currency: "USD",
      product_url: "https://shop.example.com/glow",
    })
    .returning("id");
  await app.ctx
    .db("product_assets")
    .insert({ product_id: product.id, media_asset_id: asset.id, role: "image" });

  const { provider } = await authorizeThroughBrowser(app, browser, owner, {
    scope: "create:carousels manage:carousels read:content read:jobs",
  });
  const client = new Client({ name: "carousel-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(app.resource), { authProvider: provider }));
  try {
    const started = await call(client, "generate_carousel", {
      product_id: product.id,
      slide_count: 4,
      design_id: "product-showcase",
      format: "square",
      prompt: "Morning routine",
      idempotency_key: randomUUID(),
    });
    assert.equal(started.status, "queued", JSON.stringify(started));
    const done = await settle(client, started.operation_id!);
    assert.equal(done.data?.status, "succeeded", JSON.stringify(done));
    const postId = started.data.post_id as string;
    const carousel = await rendered(client, postId);
    assert.equal(carousel.data.run.status, "succeeded");
    assert.deepEqual(
      carousel.data.slides.map((s: any) => s.status),
      ["ready", "ready", "ready", "ready"],
    );

    // A request that goes stale: the copy of slide 2 is regenerated (0 credits) before the decision.
    const staleReq = await call(client, "approve_carousel", {
      post_id: postId,
      idempotency_key: randomUUID(),
    });
    assert.equal(staleReq.status, "approval_required");
    const redo = await call(client, "regenerate_carousel_slide", {
      post_id: postId,
      position: 2,
      what: "copy",
      idempotency_key: randomUUID(),
    });
    assert.equal(redo.status, "queued", JSON.stringify(redo));
    assert.equal((await settle(client, redo.operation_id!)).data?.status, "succeeded");
    assert.equal((await rendered(client, postId)).data.run.status, "succeeded");
    {
      const { context, page } = await openAsOwner(staleReq.approval_url!, owner);
      try {
        await Promise.all([
          page.waitForURL((u) => u.searchParams.get("result") === "stale"),
          page.click('button[name="decision"][value="approve"]'),
        ]);
        assert.match((await page.textContent("body")) ?? "", /changed after this request was made/);
      } finally {
        await context.close();
      }
      const post = await app.ctx.db("posts").where({ id: postId }).first("status");
      assert.equal(post.status, "draft", "a stale approval changes nothing");
    }

    // A fresh request: the page shows every slide, the owner approves, the post is approved.
    const req = await call(client, "approve_carousel", { post_id: postId, idempotency_key: randomUUID() });
    assert.equal(req.status, "approval_required");
    const { context, page } = await openAsOwner(req.approval_url!, owner);
    try {
      const images = page.locator("#slides img");
      assert.equal(await images.count(), 4);
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll<HTMLImageElement>("#slides img")).every((i) => i.complete),
      );
      const sizes = await images.evaluateAll((els) =>
        (els as HTMLImageElement[]).map((i) => [i.naturalWidth, i.naturalHeight]),
      );
      assert.deepEqual(sizes, [
        [1080, 1080],
        [1080, 1080],
        [1080, 1080],
        [1080, 1080],
      ]);
      assert.ok(await page.locator("#client-unverified").count(), "the client is marked unverified");
      await Promise.all([
        page.waitForURL((u) => u.searchParams.get("result") === "approved"),
        page.click('button[name="decision"][value="approve"]'),
      ]);
    } finally {
      await context.close();
    }
    const approved = await settle(client, req.operation_id!);
    assert.equal(approved.data?.status, "succeeded", JSON.stringify(approved));
    const post = await app.ctx.db("posts").where({ id: postId }).first("status");
    assert.equal(post.status, "approved");
  } finally {
    await client.close();
  }
});
