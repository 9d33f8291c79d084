/**
 * The official SDK clients accept every answer the listing promises (DESIGN.md section 3 "Listings that every
 * client accepts"): the v2 client (@modelcontextprotocol/client, 2026-07-28) and the v1 client
 * (@modelcontextprotocol/sdk, 2025-11-25), both validating `structuredContent` against the listed output
 * schema, call and replay every review tool after the user approves, declines and lets it expire, and every
 * queued tool after its work finished. Both clients use one connection, so the v1 client replays the v2
 * client's requests. A tampered answer is refused by each client: their validation is on.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { decideOperation } from "../../src/operations/approvals.ts";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { startTestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";
import { htmlPage, localServer } from "../providers/fetch-server.ts";
import { JSON_LD_PAGE } from "../fixtures/product-pages.ts";
import { account, product, storedImage } from "../tools/carousels/fixtures.ts";

const shop = await localServer({ "/glow": htmlPage(JSON_LD_PAGE) });
const app = await startTestApp({
  worker: true,
  env: {
    FETCH_ALLOW_LOOPBACK_PORT: String(shop.port),
    RATE_LIMIT_APPROVAL: "1000",
    RATE_LIMIT_DELETE: "1000",
    RATE_LIMIT_WRITES: "1000",
    RATE_LIMIT_AI: "1000",
    RATE_LIMIT_READ: "5000",
  },
});
const me = await app.user({ plan: "pro" });
const { token } = await connect(app, me, [...ALL_SCOPES]);
const headers = { Authorization: `Bearer ${token}` };

/** When set, the next answer to a tools/call of this tool comes back with its status changed. */
let tamper: string | undefined;
const tamperingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const name =
    new Headers(init?.headers).get("mcp-name") ?? JSON.parse(String(init?.body ?? "{}")).params?.name;
  if (!tamper || name !== tamper) return res;
  tamper = undefined;
  const body = await res.json();
  body.result.structuredContent.status = "teapot";
  return new Response(JSON.stringify(body), {
    status: res.status,
    headers: { "content-type": "application/json" },
  });
};

const v2 = new ClientV2(
  { name: "replays-v2", version: "1.0.0" },
  { versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
await v2.connect(new TransportV2(new URL(app.resource), { requestInit: { headers }, fetch: tamperingFetch }));
const v1 = new ClientV1({ name: "replays-v1", version: "1.0.0" });
await v1.connect(new TransportV1(new URL(app.resource), { requestInit: { headers }, fetch: tamperingFetch }));
after(async () => {
  await v2.close();
  await v1.close();
});
// The listing each client validates against (both cache it at listTools).
assert.equal((await v2.listTools()).tools.length, 50);
assert.equal((await v1.listTools()).tools.length, 50);

type Envelope = { status: string; operation_id?: string; data?: any; error?: any; next?: any };
const env = (r: object) => (r as { structuredContent?: unknown }).structuredContent as Envelope;
const callV2 = async (name: string, args: Record<string, unknown>) =>
  env(await v2.callTool({ name, arguments: args }));
const callV1 = async (name: string, args: Record<string, unknown>) =>
  env(await v1.callTool({ name, arguments: args }));

/** Polls the operation with the long poll until it is settled. */
async function settled(operationId: string): Promise<string> {
  for (let i = 0; i < 40; i++) {
    const s = await callV2("get_job_status", { operation_id: operationId, wait_seconds: 10 });
    assert.ok(s.data, `get_job_status answered no data: ${JSON.stringify(s)}`);
    if (!["approval_required", "approved", "queued", "running", "dispatch_failed"].includes(s.data.status))
      return s.data.status;
  }
  throw new Error(`operation ${operationId} did not settle`);
}

/** Calls a review tool, applies `outcome`, and replays the call with both clients (validated by each). */
async function review(
  name: string,
  args: Record<string, unknown>,
  outcome: "approve" | "decline" | "expire",
) {
  const call = { ...args, idempotency_key: randomUUID() };
  const first = await callV2(name, call);
  assert.equal(first.status, "approval_required", `${name}: ${JSON.stringify(first)}`);
  assert.ok(first.data.summary && first.data.expires_at);
  const id = first.operation_id!;
  if (outcome === "expire") {
    await app.ctx
      .db("operations")
      .where({ id })
      .update({ approval_expires_at: new Date(Date.now() - 1000) });
    await runMaintenance(app.ctx);
  } else await decideOperation(app.ctx, id, me.user_id, outcome);
  const replays = [await callV2(name, call), await callV1(name, call)];
  if (outcome === "approve") {
    await settled(id);
    replays.push(await callV2(name, call), await callV1(name, call));
  }
  for (const r of replays) {
    if (outcome === "approve") assert.equal(r.data.decision, "approved", name);
    else {
      assert.equal(r.status, "denied", name);
      assert.equal(r.data.decision, outcome === "decline" ? "declined" : "expired", name);
    }
  }
  return replays.at(-1)!;
}

test("every review tool replayed after decline, expiry and approval: both SDK clients accept every answer", async () => {
  const insta = await account(app, me, "instagram", "Shop Insta");
  const textPost = async () =>
    (
      await app.ctx
        .db("posts")
        .insert({
          workspace_id: me.workspace_id,
          user_id: me.user_id,
          type: "text",
          status: "draft",
          caption: "Hi",
        })
        .returning("id")
    )[0].id as string;
  const imagePost = async () => {
    const [row] = await app.ctx
      .db("posts")
      .insert({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        type: "image",
        status: "draft",
        caption: "Picture",
        media_asset_ids: JSON.stringify([await storedImage(app, me, 320)]),
      })
      .returning("id");
    return row.id as string;
  };
  const productId = await product(app, me);
  const automation = async () =>
    (
      await callV2("create_automation", {
        kind: "carousel",
        name: `Weekly ${randomUUID().slice(0, 8)}`,
        configuration: { product_id: productId, design_id: "bold-minimal", slide_count: 4 },
        daily_times: ["09:00"],
        idempotency_key: randomUUID(),
      })
    ).data.automation_id as string;
  const carousel = async () => {
    const [row] = await app.ctx
      .db("posts")
      .insert({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        type: "carousel",
        status: "draft",
        caption: "C",
      })
      .returning("id");
    for (let i = 1; i <= 2; i++)
      await app.ctx.db("carousel_slides").insert({
        post_id: row.id,
        position: i,
        status: "ready",
        image_asset_id: await storedImage(app, me, 320),
      });
    await app.ctx.db("carousel_runs").insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      post_id: row.id,
      design_id: "bold-minimal",
      slide_count: 2,
      status: "succeeded",
    });
    return row.id as string;
  };
  const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
  const cases: Array<[string, () => Promise<Record<string, unknown>>]> = [
    ["approve_carousel", async () => ({ post_id: await carousel() })],
    ["delete_post", async () => ({ post_id: await textPost() })],
    ["delete_product", async () => ({ product_id: await product(app, me) })],
    ["publish_post", async () => ({ post_id: await imagePost(), social_account_ids: [insta] })],
    [
      "schedule_post",
      async () => ({ post_id: await imagePost(), scheduled_for: inAnHour(), social_account_ids: [insta] }),
    ],
    [
      "schedule_posts",
      async () => ({
        items: [{ post_id: await imagePost(), scheduled_for: inAnHour(), social_account_ids: [insta] }],
      }),
    ],
    ["enable_automation", async () => ({ automation_id: await automation() })],
    ["disable_automation", async () => ({ automation_id: await automation() })],
    ["update_automation", async () => ({ automation_id: await automation(), name: "Renamed" })],
    ["delete_automation", async () => ({ automation_id: await automation() })],
    ["run_automation", async () => ({ automation_id: await automation() })],
  ];
  const reviewTools = (await v2.listTools()).tools.filter(
    (t) => (t.outputSchema?.properties as Record<string, unknown> | undefined)?.approval_url !== undefined,
  );
  assert.deepEqual(reviewTools.map((t) => t.name).sort(), cases.map(([n]) => n).sort(), "every review tool");
  for (const [name, args] of cases)
    for (const outcome of ["decline", "expire", "approve"] as const)
      await review(name, await args(), outcome);
});

test("every queued tool replayed after its work finished: both SDK clients accept the answers", async () => {
  const productId = await product(app, me);
  const queuedCall = async (name: string, args: Record<string, unknown>) => {
    const call = { ...args, idempotency_key: randomUUID() };
    const first = await callV2(name, call);
    assert.equal(first.status, "queued", `${name}: ${JSON.stringify(first)}`);
    assert.ok(first.next, `${name} names its follow-up`);
    assert.equal(await settled(first.operation_id!), "succeeded", name);
    for (const r of [await callV2(name, call), await callV1(name, call)])
      assert.equal(r.operation_id, first.operation_id);
    return first;
  };
  await queuedCall("create_product", { product_url: `${shop.url}/glow` });
  await queuedCall("fetch_product_details", { product_url: `${shop.url}/glow` });
  const generated = await queuedCall("generate_carousel", {
    product_id: productId,
    design_id: "bold-minimal",
    slide_count: 4,
  });
  const postId = generated.data.post_id;
  const done = async () => {
    for (let i = 0; i < 30; i++) {
      const c = await callV2("get_carousel", { post_id: postId, wait_seconds: 10 });
      if (!["queued", "running"].includes(c.data.run.status)) return c;
    }
    throw new Error("the carousel did not finish");
  };
  assert.equal((await done()).data.run.status, "succeeded");
  await queuedCall("regenerate_carousel_slide", { post_id: postId, position: 1, what: "copy" });
  await done();
  await app.ctx.db("carousel_slides").where({ post_id: postId, position: 2 }).update({ status: "failed" });
  await app.ctx.db("carousel_runs").where({ post_id: postId }).update({ status: "failed" });
  await queuedCall("retry_carousel", { post_id: postId });
  assert.equal((await done()).data.run.status, "succeeded");
});

test("each client validates: a tampered status is refused", async () => {
  for (const client of [v2, v1]) {
    tamper = "get_profile";
    await assert.rejects(client.callTool({ name: "get_profile", arguments: {} }), /output|schema|status/i);
  }
});
