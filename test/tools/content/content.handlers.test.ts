import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { createNamedProduct } from "../../helpers/tool-context.ts";
import { handler as createImagePost } from "../../../src/tools/content/create_image_post.ts";
import { handler as createTextPost } from "../../../src/tools/content/create_text_post.ts";
import { handler as deletePost } from "../../../src/tools/content/delete_post.ts";
import { handler as getPost } from "../../../src/tools/content/get_post.ts";
import { handler as listContent } from "../../../src/tools/content/list_content.ts";
import { handler as searchContent } from "../../../src/tools/content/search_content.ts";
import { startTestApp } from "../../helpers/app.ts";
import { asset, rejectsWith, toolCtx, world } from "../../domain/world.ts";

const app = await startTestApp({ queue: false });
const { a, b, c } = await world(app);
const key = () => randomUUID();

test("create_text_post saves a draft with an owned product; get_post reads it", async () => {
  const { data: product } = await createNamedProduct(
    { name: "Glow Serum", idempotency_key: key() },
    toolCtx(app, a),
  );
  const { data } = await createTextPost.execute(
    {
      caption: "Summer sale starts Friday",
      status: "draft",
      title: "Teaser",
      product_id: product.product_id,
      idempotency_key: key(),
    },
    toolCtx(app, a),
  );
  assert.equal(data.type, "text");
  assert.equal(data.status, "draft");
  assert.equal(data.caption, "Summer sale starts Friday");
  assert.equal(data.product_id, product.product_id);
  const got = await getPost.execute({ post_id: data.post_id }, toolCtx(app, a));
  assert.deepEqual(got.data, {
    ...data,
    carousel: null,
    caption_provider: null,
    media_provider: null,
    alt_texts: [],
    deliveries: [],
  });
});

test("create_text_post validation: draft only, non-empty caption, owned product", async () => {
  const ctx = toolCtx(app, a);
  await rejectsWith(
    createTextPost.execute({ caption: "x", status: "published" as "draft", idempotency_key: key() }, ctx),
    "validation_failed",
  );
  await rejectsWith(
    createTextPost.execute({ caption: "   ", status: "draft", idempotency_key: key() }, ctx),
    "validation_failed",
  );
  const { data: foreign } = await createNamedProduct(
    { name: "C's", idempotency_key: key() },
    toolCtx(app, c),
  );
  await rejectsWith(
    createTextPost.execute(
      { caption: "x", status: "draft", product_id: foreign.product_id, idempotency_key: key() },
      ctx,
    ),
    "not_found",
  );
});

test("create_image_post accepts only the caller's own images", async () => {
  const ctx = toolCtx(app, a);
  const i1 = await asset(app, a);
  const i2 = await asset(app, a);
  const { data } = await createImagePost.execute(
    { media_asset_ids: [i1, i2], caption: "New colours", status: "draft", idempotency_key: key() },
    ctx,
  );
  assert.equal(data.type, "image");
  assert.deepEqual(data.media_asset_ids, [i1, i2]);
  const bMedia = await asset(app, b);
  const cMedia = await asset(app, c);
  const video = await asset(app, a, { kind: "video" });
  for (const bad of [bMedia, cMedia, randomUUID()]) {
    await rejectsWith(
      createImagePost.execute(
        { media_asset_ids: [i1, bad], caption: "x", status: "draft", idempotency_key: key() },
        ctx,
      ),
      "not_found",
    );
  }
  await rejectsWith(
    createImagePost.execute(
      { media_asset_ids: [video], caption: "x", status: "draft", idempotency_key: key() },
      ctx,
    ),
    "validation_failed",
  );
  await rejectsWith(
    createImagePost.execute(
      { media_asset_ids: [], caption: "x", status: "draft", idempotency_key: key() },
      ctx,
    ),
    "validation_failed",
  );
});

test("list_content pages newest first with filters and a validated cursor", async () => {
  const u = await app.user();
  const ctx = toolCtx(app, u);
  const img = await asset(app, u);
  for (let i = 0; i < 4; i++)
    await createTextPost.execute({ caption: `text ${i}`, status: "draft", idempotency_key: key() }, ctx);
  await createImagePost.execute(
    { media_asset_ids: [img], caption: "image post", status: "draft", idempotency_key: key() },
    ctx,
  );
  const p1 = await listContent.execute({ limit: 3 }, ctx);
  assert.deepEqual(
    p1.data.items.map((p) => p.caption),
    ["image post", "text 3", "text 2"],
  );
  const p2 = await listContent.execute({ limit: 3, cursor: p1.data.next_cursor! }, ctx);
  assert.deepEqual(
    p2.data.items.map((p) => p.caption),
    ["text 1", "text 0"],
  );
  assert.equal(p2.data.next_cursor, null);
  const images = await listContent.execute({ type: "image" }, ctx);
  assert.deepEqual(
    images.data.items.map((p) => p.caption),
    ["image post"],
  );
  assert.equal((await listContent.execute({ status: "published" }, ctx)).data.items.length, 0);
  await rejectsWith(listContent.execute({ cursor: "%%%" }, ctx), "validation_failed");
  await rejectsWith(listContent.execute({ limit: 51 }, ctx), "validation_failed");
});

test("search_content ranks title matches first, uses web-search syntax, stays in scope", async () => {
  const u = await app.user();
  const ctx = toolCtx(app, u);
  await createTextPost.execute(
    { caption: "We love running shoes for trails", status: "draft", idempotency_key: key() },
    ctx,
  );
  const { data: titled } = await createTextPost.execute(
    {
      caption: "Best picks of the season",
      title: "Running shoes guide",
      status: "draft",
      idempotency_key: key(),
    },
    ctx,
  );
  await createTextPost.execute({ caption: "Coffee mugs", status: "draft", idempotency_key: key() }, ctx);
  const { data } = await searchContent.execute({ query: "running shoes" }, ctx);
  assert.equal(data.items.length, 2);
  assert.equal(data.items[0]!.post_id, titled.post_id);
  assert.ok(data.items[0]!.rank >= data.items[1]!.rank);
  assert.equal((await searchContent.execute({ query: "running -trails" }, ctx)).data.items.length, 1);
  assert.equal(
    (await searchContent.execute({ query: "\"'); drop table posts; --" }, ctx)).data.items.length,
    0,
  );
  assert.equal((await searchContent.execute({ query: "running", limit: 1 }, ctx)).data.items.length, 1);
  // Other users (same workspace or not) find nothing of u's.
  assert.equal((await searchContent.execute({ query: "running" }, toolCtx(app, c))).data.items.length, 0);
});

test("a second member and another workspace's user get not_found for A's post", async () => {
  const { data: post } = await createTextPost.execute(
    { caption: "A's private draft", status: "draft", idempotency_key: key() },
    toolCtx(app, a),
  );
  for (const who of [b, c]) {
    const ctx = toolCtx(app, who);
    await rejectsWith(getPost.execute({ post_id: post.post_id }, ctx), "not_found");
    await rejectsWith(
      deletePost.describe!({ post_id: post.post_id, idempotency_key: key() }, ctx),
      "not_found",
    );
    await rejectsWith(
      deletePost.execute({ post_id: post.post_id, idempotency_key: key() }, ctx),
      "not_found",
    );
    assert.ok(!(await listContent.execute({}, ctx)).data.items.some((p) => p.post_id === post.post_id));
    assert.equal((await searchContent.execute({ query: "private draft" }, ctx)).data.items.length, 0);
  }
});

test("delete_post: describe labels with a caption excerpt; execute soft-deletes idempotently and cancels schedules", async () => {
  const ctx = toolCtx(app, a);
  const caption = `Launch day! ${"very long caption ".repeat(10)}`;
  const { data: post } = await createTextPost.execute(
    { caption, status: "draft", idempotency_key: key() },
    ctx,
  );
  await app.ctx.db("schedules").insert({
    user_id: a.user_id,
    workspace_id: a.workspace_id,
    post_id: post.post_id,
    scheduled_for: new Date(Date.now() + 86400_000),
    status: "scheduled",
  });
  const input = { post_id: post.post_id, idempotency_key: key() };
  const d = await deletePost.describe!(input, ctx);
  assert.equal(d.resources.length, 1);
  assert.equal(d.resources[0]!.kind, "post");
  assert.ok(d.resources[0]!.label.startsWith("Launch day!"));
  assert.ok(d.resources[0]!.label.length <= 60);
  assert.deepEqual((await deletePost.execute(input, ctx)).data, { post_id: post.post_id, deleted: true });
  assert.deepEqual((await deletePost.execute(input, ctx)).data, { post_id: post.post_id, deleted: true });
  await rejectsWith(getPost.execute({ post_id: post.post_id }, ctx), "not_found");
  const schedule = await app.ctx.db("schedules").where({ post_id: post.post_id }).first();
  assert.equal(schedule.status, "canceled");
});
