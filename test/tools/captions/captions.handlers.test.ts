import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { handler as generateCaptions } from "../../../src/tools/captions/generate_captions.ts";
import { handler as generateUgcHooks } from "../../../src/tools/captions/generate_ugc_hooks.ts";
import { handler as createTextPost } from "../../../src/tools/content/create_text_post.ts";
import { createNamedProduct } from "../../helpers/tool-context.ts";
import { creditBalance } from "../../../src/domain/account/credits.ts";
import { startTestApp } from "../../helpers/app.ts";
import { rejectsWith, toolCtx, world } from "../../domain/world.ts";

const app = await startTestApp({ queue: false });
const { a, b, c } = await world(app);
const key = () => randomUUID();

test("generate_captions from a product: variations with hooks and hashtags, free, deterministic", async () => {
  const ctx = toolCtx(app, a);
  const { data: p } = await createNamedProduct(
    {
      name: "Glow Serum",
      description: "Vitamin C serum.",
      price: 29.9,
      currency: "EUR",
      brand: "Lumen",
      tags: ["skincare"],
      idempotency_key: key(),
    },
    ctx,
  );
  const before = await creditBalance(app.ctx.db, a.user_id);
  const input = {
    product_id: p.product_id,
    count: 4,
    tone: "bold" as const,
    network: "instagram" as const,
    idempotency_key: key(),
  };
  const out = await generateCaptions.execute(input, ctx);
  assert.equal(out.credits_charged, 0);
  assert.equal(out.data.variations.length, 4);
  for (const v of out.data.variations) {
    assert.match(v.caption, /Glow Serum/);
    assert.ok(v.hook.length > 0);
    for (const h of v.hashtags) assert.match(h, /^#[^\s#]+$/);
  }
  assert.deepEqual((await generateCaptions.execute(input, ctx)).data, out.data);
  assert.equal(await creditBalance(app.ctx.db, a.user_id), before);
  const noTags = await generateCaptions.execute(
    { brief: "Spring sale", include_hashtags: false, idempotency_key: key() },
    ctx,
  );
  assert.equal(noTags.data.variations.length, 3);
  assert.ok(noTags.data.variations.every((v) => v.hashtags.length === 0));
});

test("generate_captions from a post uses its caption; post, product or brief required", async () => {
  const ctx = toolCtx(app, a);
  const { data: post } = await createTextPost.execute(
    { caption: "Handmade mugs are back.", status: "draft", idempotency_key: key() },
    ctx,
  );
  const out = await generateCaptions.execute(
    { post_id: post.post_id, count: 1, idempotency_key: key() },
    ctx,
  );
  assert.match(out.data.variations[0]!.caption, /Handmade mugs are back\./);
  await rejectsWith(generateCaptions.execute({ idempotency_key: key() }, ctx), "validation_failed");
});

test("generate_ugc_hooks returns short hooks", async () => {
  const out = await generateUgcHooks.execute(
    { brief: "Portable blender", count: 6, idempotency_key: key() },
    toolCtx(app, a),
  );
  assert.equal(out.data.hooks.length, 6);
  for (const h of out.data.hooks) assert.ok(h.text.length >= 1 && h.text.length <= 80);
  await rejectsWith(
    generateUgcHooks.execute({ idempotency_key: key() }, toolCtx(app, a)),
    "validation_failed",
  );
});

test("others' posts and products are not_found as caption subjects", async () => {
  const { data: p } = await createNamedProduct(
    { name: "A's product", idempotency_key: key() },
    toolCtx(app, a),
  );
  const { data: post } = await createTextPost.execute(
    { caption: "A's draft", status: "draft", idempotency_key: key() },
    toolCtx(app, a),
  );
  for (const who of [b, c]) {
    const ctx = toolCtx(app, who);
    await rejectsWith(
      generateCaptions.execute({ product_id: p.product_id, idempotency_key: key() }, ctx),
      "not_found",
    );
    await rejectsWith(
      generateCaptions.execute({ post_id: post.post_id, idempotency_key: key() }, ctx),
      "not_found",
    );
    await rejectsWith(
      generateUgcHooks.execute({ product_id: p.product_id, idempotency_key: key() }, ctx),
      "not_found",
    );
  }
});
