/**
 * End to end for the domain tools with the official MCP SDK client over POST /mcp: create a
 * product, generate captions, save a text post and find it with search_content; idempotent retries and
 * conflicts, schema validation, isolation, the review path of delete_post and the queued path of
 * fetch_product_details (worker running, polled with get_job_status).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addMember } from "../../src/domain/account/accounts.ts";
import { JSON_LD_PAGE } from "../fixtures/product-pages.ts";
import { startTestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";
import { htmlPage, localServer } from "../providers/fetch-server.ts";

const shop = await localServer({ "/glow": htmlPage(JSON_LD_PAGE) });
const app = await startTestApp({
  worker: true,
  env: {
    FETCH_ALLOW_LOOPBACK_PORT: String(shop.port),
    // The per-user budgets are exercised by the runtime's own tests; this file makes many calls per minute.
    RATE_LIMIT_DELETE: "100",
    RATE_LIMIT_AI: "100",
  },
});

const SCOPES = [
  "read:products",
  "create:products",
  "manage:products",
  "delete:products",
  "read:content",
  "create:content",
  "delete:content",
  "create:captions",
  "read:media",
  "read:jobs",
];

async function client(who: { user_id: string; workspace_id: string }) {
  const { token } = await connect(app, who, SCOPES);
  const c = new Client({ name: "domain-e2e", version: "1.0.0" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(app.resource), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}

type Envelope = {
  status: string;
  data?: any;
  error?: { code: string; retry_after?: number };
  operation_id?: string;
  approval_url?: string;
  credits_charged?: number;
};

async function call(
  c: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ env: Envelope; isError: boolean }> {
  const r = await c.callTool({ name, arguments: args });
  return { env: r.structuredContent as Envelope, isError: r.isError === true };
}

const owner = await app.user();
const member = await app.user();
await addMember(app.ctx.db, owner.workspace_id, member.email);
const outsider = await app.user();

test("create a product, generate captions, save a text post and find it with search_content", async () => {
  const c = await client(owner);
  try {
    const product = await call(c, "create_product", {
      name: "Glow Serum",
      description: "Vitamin C face serum, 30 ml.",
      price: 29.9,
      currency: "EUR",
      brand: "Lumen",
      tags: ["skincare"],
      idempotency_key: randomUUID(),
    });
    assert.equal(product.env.status, "succeeded", JSON.stringify(product.env));
    const productId = product.env.data.product_id;

    const captions = await call(c, "generate_captions", {
      product_id: productId,
      count: 2,
      tone: "playful",
      idempotency_key: randomUUID(),
    });
    assert.equal(captions.env.status, "succeeded", JSON.stringify(captions.env));
    assert.equal(captions.env.data.variations.length, 2);
    const caption = `${captions.env.data.variations[0].caption} Zanzibar edition`;

    const postKey = randomUUID();
    const postArgs = { caption, status: "draft", product_id: productId, idempotency_key: postKey };
    const post = await call(c, "create_text_post", postArgs);
    assert.equal(post.env.status, "succeeded", JSON.stringify(post.env));
    assert.equal(post.env.data.status, "draft");

    const found = await call(c, "search_content", { query: "zanzibar" });
    assert.deepEqual(
      found.env.data.items.map((i: { post_id: string }) => i.post_id),
      [post.env.data.post_id],
    );

    // Idempotent retry: same key and arguments -> the same post, not a second one.
    const retry = await call(c, "create_text_post", postArgs);
    assert.equal(retry.env.data.post_id, post.env.data.post_id);
    const listed = await call(c, "list_content", {});
    assert.equal(listed.env.data.items.filter((i: { caption: string }) => i.caption === caption).length, 1);
    // Same key, different arguments -> idempotency_conflict.
    const conflict = await call(c, "create_text_post", { ...postArgs, caption: "something else" });
    assert.equal(conflict.isError, true);
    assert.equal(conflict.env.error?.code, "idempotency_conflict");
  } finally {
    await c.close();
  }
});

test("schema validation rejects unknown arguments, bad values and missing keys", async () => {
  const c = await client(owner);
  try {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["create_text_post", { caption: "x", status: "published", idempotency_key: randomUUID() }],
      ["create_text_post", { caption: "x", status: "draft" }],
      ["create_product", { name: "x", user_id: owner.user_id, idempotency_key: randomUUID() }],
      ["list_content", { limit: 51 }],
      ["get_media", { asset_id: "../../etc/passwd" }],
      ["generate_captions", { count: 2, idempotency_key: randomUUID() }],
      ["fetch_product_details", { product_url: "file:///etc/passwd", idempotency_key: randomUUID() }],
    ];
    for (const [name, args] of cases) {
      const r = await call(c, name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.ok(
        ["invalid_arguments", "validation_failed"].includes(r.env.error!.code),
        `${name}: ${r.env.error?.code}`,
      );
    }
  } finally {
    await c.close();
  }
});

test("another member of the workspace and another workspace's user get not_found", async () => {
  const c = await client(owner);
  const product = await call(c, "create_product", { name: "Private", idempotency_key: randomUUID() });
  const post = await call(c, "create_text_post", {
    caption: "Private draft",
    status: "draft",
    idempotency_key: randomUUID(),
  });
  await c.close();
  for (const who of [{ ...member, workspace_id: owner.workspace_id }, outsider]) {
    const other = await client(who);
    try {
      for (const [name, args] of [
        ["get_product", { product_id: product.env.data.product_id }],
        ["get_post", { post_id: post.env.data.post_id }],
        ["delete_post", { post_id: post.env.data.post_id, idempotency_key: randomUUID() }],
        ["delete_product", { product_id: product.env.data.product_id, idempotency_key: randomUUID() }],
      ] as const) {
        const r = await call(other, name, args);
        assert.equal(r.isError, true, name);
        assert.equal(r.env.error?.code, "not_found", name);
      }
    } finally {
      await other.close();
    }
  }
});

test("delete_post needs browser approval; fetch_product_details is queued and polled to its result", async () => {
  const c = await client(owner);
  try {
    const post = await call(c, "create_text_post", {
      caption: "To delete",
      status: "draft",
      idempotency_key: randomUUID(),
    });
    const del = await call(c, "delete_post", {
      post_id: post.env.data.post_id,
      idempotency_key: randomUUID(),
    });
    assert.equal(del.env.status, "approval_required", JSON.stringify(del.env));
    assert.match(del.env.approval_url ?? "", /^http/);
    const still = await call(c, "get_post", { post_id: post.env.data.post_id });
    assert.equal(still.env.status, "succeeded");

    const product = await call(c, "create_product", { name: "Serum", idempotency_key: randomUUID() });
    const fetchCall = await call(c, "fetch_product_details", {
      product_url: `${shop.url}/glow`,
      product_id: product.env.data.product_id,
      idempotency_key: randomUUID(),
    });
    assert.equal(fetchCall.env.status, "queued", JSON.stringify(fetchCall.env));
    assert.deepEqual(fetchCall.env.data, {
      url: `${shop.url}/glow`,
      product_id: product.env.data.product_id,
    });
    let status: Envelope | undefined;
    for (let i = 0; i < 150; i++) {
      status = (await call(c, "get_job_status", { operation_id: fetchCall.env.operation_id })).env;
      if (["succeeded", "failed", "outcome_unknown"].includes(status.data?.status)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(status?.data?.status, "succeeded", JSON.stringify(status));
    assert.equal(status?.data?.result?.title, "Glow Serum");
    const updated = await call(c, "get_product", { product_id: product.env.data.product_id });
    assert.equal(updated.env.data.price, 29.9);
    assert.equal(updated.env.data.brand, "Lumen");
  } finally {
    await c.close();
  }
});

test("every mutation tool of the domain replays the first result for a retried key", async () => {
  const c = await client(owner);
  try {
    const image = await app.ctx
      .db("media_assets")
      .insert({
        user_id: owner.user_id,
        workspace_id: owner.workspace_id,
        kind: "image",
        mime_type: "image/png",
        bytes: 10,
        storage_key: `${randomUUID()}.png`,
      })
      .returning("id");
    const product = await call(c, "create_product", { name: "Retry me", idempotency_key: randomUUID() });
    const productId = product.env.data.product_id;
    const post = await call(c, "create_text_post", {
      caption: "Retry post",
      status: "draft",
      idempotency_key: randomUUID(),
    });
    const calls: Array<[string, Record<string, unknown>]> = [
      ["create_product", { name: "Once", tags: ["a"] }],
      ["update_product", { product_id: productId, brand: "Once" }],
      ["create_image_post", { media_asset_ids: [image[0].id], caption: "Once", status: "draft" }],
      ["generate_captions", { brief: "Once", count: 2 }],
      ["generate_ugc_hooks", { brief: "Once", count: 2 }],
      ["fetch_product_details", { product_url: `${shop.url}/glow` }],
      ["delete_post", { post_id: post.env.data.post_id }],
      ["delete_product", { product_id: productId }],
    ];
    for (const [name, args] of calls) {
      const withKey = { ...args, idempotency_key: randomUUID() };
      const first = await call(c, name, withKey);
      assert.equal(first.isError, false, `${name}: ${JSON.stringify(first.env)}`);
      const second = await call(c, name, withKey);
      const { request_id: _r1, ...a } = first.env as Envelope & { request_id: string };
      const { request_id: _r2, ...b } = second.env as Envelope & { request_id: string };
      assert.deepEqual(b, a, name);
    }
    const created = await app.ctx
      .db("products")
      .where({ user_id: owner.user_id, name: "Once" })
      .count({ n: "*" })
      .first();
    assert.equal(Number(created?.n), 1);
  } finally {
    await c.close();
  }
});
