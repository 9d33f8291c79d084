/**
 * Stored CTA artwork can be set (service spec 1.7): through update_product `cta_artwork_asset_id` (an owned
 * image, clear errors otherwise) and on the /media page (a CSRF-protected form post marking an uploaded
 * image as a product's CTA artwork).
 */
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { test } from "node:test";
import { sha256 } from "../../src/crypto/seal.ts";
import { handler as updateHandler } from "../../src/tools/products/update_product.ts";
import { inline, media, named, product, setup, toolError } from "../tools/carousels/fixtures.ts";

const update = named("update_product", updateHandler);
const { app, me, other } = await setup();

async function artworkOf(productId: string): Promise<string[]> {
  const rows = await app.ctx.db("product_assets").where({ product_id: productId, role: "cta_artwork" });
  return rows.map((r) => r.media_asset_id);
}

test("update_product sets, replaces and clears the stored CTA artwork with an owned image", async () => {
  const productId = await product(app, me);
  const first = await media(app, me, "image");
  const second = await media(app, me, "image");
  await inline(app, me, update, {
    product_id: productId,
    cta_artwork_asset_id: first,
    idempotency_key: randomUUID(),
  });
  assert.deepEqual(await artworkOf(productId), [first]);
  await inline(app, me, update, {
    product_id: productId,
    cta_artwork_asset_id: second,
    idempotency_key: randomUUID(),
  });
  assert.deepEqual(await artworkOf(productId), [second]);
  await inline(app, me, update, {
    product_id: productId,
    cta_artwork_asset_id: null,
    idempotency_key: randomUUID(),
  });
  assert.deepEqual(await artworkOf(productId), []);
});

test("update_product refuses a video, another user's image or an unknown id, naming the field; nothing changes", async () => {
  const productId = await product(app, me);
  const mine = await media(app, me, "image");
  await inline(app, me, update, {
    product_id: productId,
    cta_artwork_asset_id: mine,
    idempotency_key: randomUUID(),
  });
  for (const bad of [await media(app, me, "video", 5), await media(app, other, "image"), randomUUID()]) {
    const err = await toolError(
      inline(app, me, update, {
        product_id: productId,
        cta_artwork_asset_id: bad,
        idempotency_key: randomUUID(),
      }),
    );
    assert.equal(err.code, "validation_failed");
    assert.match(err.message, /cta_artwork_asset_id must be an image asset of yours/);
    assert.equal((err.details as any)?.[0]?.instancePath, "/cta_artwork_asset_id");
    assert.deepEqual(await artworkOf(productId), [mine]);
  }
});

async function session(userId: string) {
  const id = randomBytes(32).toString("base64url");
  const csrf = randomBytes(32).toString("base64url");
  await app.ctx.db("browser_sessions").insert({
    id_hash: sha256(id),
    user_id: userId,
    csrf_token: csrf,
    expires_at: new Date(Date.now() + 3600_000),
  });
  return { cookie: `smcp_session=${id}`, csrf };
}

const post = (cookie: string, fields: Record<string, string>) =>
  fetch(`${app.url}/media/cta-artwork`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    redirect: "manual",
  });

test("the /media page offers the form and its CSRF-checked post marks an uploaded image as CTA artwork", async () => {
  const s = await session(me.user_id);
  const productId = await product(app, me);
  const image = await media(app, me, "image");
  const page = await (
    await fetch(`${app.url}/media?workspace_id=${me.workspace_id}`, { headers: { cookie: s.cookie } })
  ).text();
  assert.match(page, /id="cta-artwork"/);
  assert.ok(page.includes(`value="${image}"`));

  const forged = await post(s.cookie, {
    csrf_token: "wrong",
    workspace_id: me.workspace_id,
    product_id: productId,
    asset_id: image,
  });
  assert.equal(forged.status, 403);
  assert.deepEqual(await artworkOf(productId), []);

  const video = await media(app, me, "video", 4);
  const refused = await post(s.cookie, {
    csrf_token: s.csrf,
    workspace_id: me.workspace_id,
    product_id: productId,
    asset_id: video,
  });
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /Choose one of your images/);
  assert.deepEqual(await artworkOf(productId), []);

  const ok = await post(s.cookie, {
    csrf_token: s.csrf,
    workspace_id: me.workspace_id,
    product_id: productId,
    asset_id: image,
  });
  assert.equal(ok.status, 303);
  assert.deepEqual(await artworkOf(productId), [image]);
});
