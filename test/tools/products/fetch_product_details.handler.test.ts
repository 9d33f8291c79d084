import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { createNamedProduct } from "../../helpers/tool-context.ts";
import { handler as fetchDetails } from "../../../src/tools/products/fetch_product_details.ts";
import { handler as getProduct } from "../../../src/tools/products/get_product.ts";
import { startTestApp } from "../../helpers/app.ts";
import { rejectsWith, toolCtx, world } from "../../domain/world.ts";
import { JSON_LD_PAGE, OPEN_GRAPH_PAGE } from "../../fixtures/product-pages.ts";
import { htmlPage, localServer, redirectTo } from "../../providers/fetch-server.ts";

const other = await localServer({ "/": htmlPage("<title>other</title>") });
const shop = await localServer({
  "/glow": htmlPage(JSON_LD_PAGE),
  "/shoe": htmlPage(OPEN_GRAPH_PAGE),
  "/evil": redirectTo("http://169.254.169.254/latest/meta-data/"),
  "/other-port": redirectTo(`http://127.0.0.1:${other.port}/`),
});
const app = await startTestApp({ queue: false, env: { FETCH_ALLOW_LOOPBACK_PORT: String(shop.port) } });
const { a, b, c } = await world(app);
const key = () => randomUUID();

test("accept validates the URL syntax and the product's ownership, returns {url, product_id}", async () => {
  const ctx = toolCtx(app, a);
  const { data } = await fetchDetails.accept!(
    { product_url: `${shop.url}/glow`, idempotency_key: key() },
    ctx,
  );
  assert.deepEqual(data, { url: `${shop.url}/glow`, product_id: null });
  for (const bad of ["ftp://x.example/", "https://u:p@x.example/", "https://x.example:8080/"]) {
    await rejectsWith(
      fetchDetails.accept!({ product_url: bad, idempotency_key: key() }, ctx),
      "validation_failed",
    );
  }
  const { data: p } = await createNamedProduct({ name: "Mine", idempotency_key: key() }, ctx);
  for (const who of [b, c]) {
    await rejectsWith(
      fetchDetails.accept!(
        { product_url: `${shop.url}/glow`, product_id: p.product_id, idempotency_key: key() },
        toolCtx(app, who),
      ),
      "not_found",
    );
  }
});

test("execute extracts JSON-LD details and returns them as data", async () => {
  const input = { product_url: `${shop.url}/glow`, idempotency_key: key() };
  const ctx = toolCtx(app, a);
  const accepted = (await fetchDetails.accept!(input, ctx)).data;
  const { data } = await fetchDetails.execute(input, ctx, accepted);
  assert.deepEqual(data, {
    url: `${shop.url}/glow`,
    final_url: `${shop.url}/glow`,
    product_id: null,
    title: "Glow Serum",
    description: "Vitamin C face serum, 30 ml.",
    price: 29.9,
    currency: "EUR",
    brand: "Lumen",
    image_urls: [`${shop.url}/img/serum-1.jpg`, "https://cdn.example.com/serum-2.jpg"],
    sources: ["json_ld"],
  });
});

test("with product_id, the product's empty fields are filled and set ones kept", async () => {
  const ctx = toolCtx(app, a);
  const { data: p } = await createNamedProduct(
    { name: "My shoe", brand: "My brand", idempotency_key: key() },
    ctx,
  );
  const input = { product_url: `${shop.url}/shoe`, product_id: p.product_id, idempotency_key: key() };
  const accepted = (await fetchDetails.accept!(input, ctx)).data;
  const { data } = await fetchDetails.execute(input, ctx, accepted);
  assert.equal(data.product_id, p.product_id);
  const { data: after } = await getProduct.execute({ product_id: p.product_id }, ctx);
  assert.equal(after.name, "My shoe");
  assert.equal(after.brand, "My brand");
  assert.equal(after.description, "Lightweight trail shoe with a grippy sole.");
  assert.equal(after.price, 119);
  assert.equal(after.currency, "USD");
  assert.equal(after.product_url, `${shop.url}/shoe`);
  const row = await app.ctx.db("products").where({ id: p.product_id }).first();
  // The protocol-relative og:image takes the page's scheme.
  assert.deepEqual(row.image_urls, [
    "https://cdn.example.com/shoe.jpg",
    "http://cdn.example.com/shoe-side.jpg",
  ]);
});

test("guard refusals become validation_failed with a stable reason; nothing reaches other addresses", async () => {
  const ctx = toolCtx(app, a);
  for (const [path, reason] of [
    ["/evil", "address"],
    ["/other-port", "port"],
  ] as const) {
    await assert.rejects(
      fetchDetails.execute({ product_url: `${shop.url}${path}`, idempotency_key: key() }, ctx, {
        url: `${shop.url}${path}`,
        product_id: null,
      }),
      (err: any) => err.code === "validation_failed" && err.details?.reason === reason,
    );
  }
  assert.equal(other.hits.length, 0);
});
