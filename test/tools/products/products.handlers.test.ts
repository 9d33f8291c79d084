import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { createNamedProduct } from "../../helpers/tool-context.ts";
import { handler as deleteProduct } from "../../../src/tools/products/delete_product.ts";
import { handler as getProduct } from "../../../src/tools/products/get_product.ts";
import { handler as listProductAssets } from "../../../src/tools/products/list_product_assets.ts";
import { handler as listProducts } from "../../../src/tools/products/list_products.ts";
import { handler as updateProduct } from "../../../src/tools/products/update_product.ts";
import { startTestApp } from "../../helpers/app.ts";
import { asset, rejectsWith, toolCtx, world } from "../../domain/world.ts";

const app = await startTestApp({ queue: false });
const { a, b, c } = await world(app);
const key = () => randomUUID();

test("create_product saves the listed fields and owned images; get and list return it", async () => {
  const img1 = await asset(app, a);
  const img2 = await asset(app, a);
  const { data } = await createNamedProduct(
    {
      name: " Glow Serum ",
      description: "Vitamin C serum",
      price: 29.9,
      currency: "EUR",
      product_url: "https://shop.example.com/glow",
      brand: "Lumen",
      tags: ["skincare", "serum"],
      image_asset_ids: [img2, img1],
      idempotency_key: key(),
    },
    toolCtx(app, a),
  );
  assert.equal(data.name, "Glow Serum");
  assert.equal(data.price, 29.9);
  assert.equal(data.currency, "EUR");
  assert.deepEqual(data.image_asset_ids, [img2, img1]);
  assert.deepEqual(Object.keys(data).sort(), [
    "brand",
    "created_at",
    "currency",
    "description",
    "image_asset_ids",
    "name",
    "price",
    "product_id",
    "product_url",
    "tags",
    "updated_at",
  ]);
  const got = await getProduct.execute({ product_id: data.product_id }, toolCtx(app, a));
  assert.deepEqual(got.data, data);
  const assets = await listProductAssets.execute({ product_id: data.product_id }, toolCtx(app, a));
  assert.deepEqual(
    assets.data.items.map((i) => [i.asset_id, i.role, i.position]),
    [
      [img2, "image", 0],
      [img1, "image", 1],
    ],
  );
  const listed = await listProducts.execute({ query: "lumen" }, toolCtx(app, a));
  assert.ok(listed.data.items.some((p) => p.product_id === data.product_id));
  const none = await listProducts.execute({ query: "no-such-thing" }, toolCtx(app, a));
  assert.equal(none.data.items.length, 0);
});

test("JPY prices keep zero minor digits; price needs a currency", async () => {
  const { data } = await createNamedProduct(
    { name: "Tea", price: 1200, currency: "JPY", idempotency_key: key() },
    toolCtx(app, a),
  );
  assert.equal(data.price, 1200);
  await rejectsWith(
    createNamedProduct({ name: "No currency", price: 5, idempotency_key: key() }, toolCtx(app, a)),
    "validation_failed",
  );
  await rejectsWith(
    createNamedProduct({ name: "   ", idempotency_key: key() }, toolCtx(app, a)),
    "validation_failed",
  );
});

test("images must be the caller's own images", async () => {
  const foreign = await asset(app, c);
  const othersInSameWorkspace = await asset(app, b);
  const video = await asset(app, a, { kind: "video" });
  await rejectsWith(
    createNamedProduct({ name: "X", image_asset_ids: [foreign], idempotency_key: key() }, toolCtx(app, a)),
    "not_found",
  );
  await rejectsWith(
    createNamedProduct(
      { name: "X", image_asset_ids: [othersInSameWorkspace], idempotency_key: key() },
      toolCtx(app, a),
    ),
    "not_found",
  );
  await rejectsWith(
    createNamedProduct({ name: "X", image_asset_ids: [video], idempotency_key: key() }, toolCtx(app, a)),
    "validation_failed",
  );
});

test("update_product changes only the given fields; null clears; no other column reachable", async () => {
  const { data: p } = await createNamedProduct(
    {
      name: "Mug",
      description: "Stoneware",
      price: 12,
      currency: "USD",
      brand: "Clay",
      idempotency_key: key(),
    },
    toolCtx(app, a),
  );
  const { data: u } = await updateProduct.execute(
    { product_id: p.product_id, price: 15.5, brand: null, idempotency_key: key(), user_id: c.user_id } as any,
    toolCtx(app, a),
  );
  assert.equal(u.price, 15.5);
  assert.equal(u.currency, "USD");
  assert.equal(u.brand, null);
  assert.equal(u.description, "Stoneware");
  assert.equal(u.name, "Mug");
  const row = await app.ctx.db("products").where({ id: p.product_id }).first();
  assert.equal(row.user_id, a.user_id);
  await rejectsWith(
    updateProduct.execute({ product_id: p.product_id, idempotency_key: key() }, toolCtx(app, a)),
    "validation_failed",
  );
});

test("another member of the workspace and a user of another workspace get not_found everywhere", async () => {
  const { data: p } = await createNamedProduct({ name: "Secret", idempotency_key: key() }, toolCtx(app, a));
  for (const who of [b, c]) {
    const ctx = toolCtx(app, who);
    await rejectsWith(getProduct.execute({ product_id: p.product_id }, ctx), "not_found");
    await rejectsWith(listProductAssets.execute({ product_id: p.product_id }, ctx), "not_found");
    await rejectsWith(
      updateProduct.execute({ product_id: p.product_id, name: "Mine", idempotency_key: key() }, ctx),
      "not_found",
    );
    await rejectsWith(
      deleteProduct.describe!({ product_id: p.product_id, idempotency_key: key() }, ctx),
      "not_found",
    );
    await rejectsWith(
      deleteProduct.execute({ product_id: p.product_id, idempotency_key: key() }, ctx),
      "not_found",
    );
    const listed = await listProducts.execute({}, ctx);
    assert.ok(!listed.data.items.some((x) => x.product_id === p.product_id));
  }
  await rejectsWith(getProduct.execute({ product_id: randomUUID() }, toolCtx(app, a)), "not_found");
});

test("delete_product: describe labels the product; execute soft-deletes, idempotently", async () => {
  const { data: p } = await createNamedProduct(
    { name: "Old <b>Lamp</b>", idempotency_key: key() },
    toolCtx(app, a),
  );
  const input = { product_id: p.product_id, idempotency_key: key() };
  const d = await deleteProduct.describe!(input, toolCtx(app, a));
  assert.deepEqual(d.resources, [{ kind: "product", id: p.product_id, label: "Old <b>Lamp</b>" }]);
  assert.match(d.summary, /Old <b>Lamp<\/b>/);
  assert.deepEqual((await deleteProduct.execute(input, toolCtx(app, a))).data, {
    product_id: p.product_id,
    deleted: true,
  });
  assert.deepEqual((await deleteProduct.execute(input, toolCtx(app, a))).data, {
    product_id: p.product_id,
    deleted: true,
  });
  const row = await app.ctx.db("products").where({ id: p.product_id }).first();
  assert.ok(row.deleted_at);
  await rejectsWith(getProduct.execute({ product_id: p.product_id }, toolCtx(app, a)), "not_found");
});

test("list_products pages newest first with an opaque, validated cursor", async () => {
  const u = await app.user();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push(
      (await createNamedProduct({ name: `P${i}`, idempotency_key: key() }, toolCtx(app, u))).data.product_id,
    );
  const p1 = await listProducts.execute({ limit: 2 }, toolCtx(app, u));
  assert.deepEqual(
    p1.data.items.map((p) => p.name),
    ["P4", "P3"],
  );
  const p2 = await listProducts.execute({ limit: 2, cursor: p1.data.next_cursor! }, toolCtx(app, u));
  const p3 = await listProducts.execute({ limit: 2, cursor: p2.data.next_cursor! }, toolCtx(app, u));
  assert.deepEqual(
    [...p2.data.items, ...p3.data.items].map((p) => p.name),
    ["P2", "P1", "P0"],
  );
  assert.equal(p3.data.next_cursor, null);
  await rejectsWith(listProducts.execute({ cursor: "not-a-cursor!" }, toolCtx(app, u)), "validation_failed");
  const forged = Buffer.from(
    JSON.stringify({ k: "ts", c: "x'; drop table products;--", i: ids[0] }),
  ).toString("base64url");
  await rejectsWith(listProducts.execute({ cursor: forged }, toolCtx(app, u)), "validation_failed");
});
