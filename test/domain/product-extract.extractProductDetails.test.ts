import assert from "node:assert/strict";
import { test } from "node:test";
import { extractProductDetails } from "../../src/domain/products/extract.ts";
import {
  AGGREGATE_OFFER_PAGE,
  JSON_LD_PAGE,
  META_ONLY_PAGE,
  OPEN_GRAPH_PAGE,
} from "../fixtures/product-pages.ts";

test("JSON-LD Product inside @graph wins, with offers, brand and absolute image URLs", () => {
  const d = extractProductDetails(JSON_LD_PAGE, "https://shop.example.com/p/glow");
  assert.equal(d.title, "Glow Serum");
  assert.equal(d.description, "Vitamin C face serum, 30 ml.");
  assert.equal(d.price, 29.9);
  assert.equal(d.currency, "EUR");
  assert.equal(d.brand, "Lumen");
  assert.deepEqual(d.image_urls, [
    "https://shop.example.com/img/serum-1.jpg",
    "https://cdn.example.com/serum-2.jpg",
  ]);
  assert.deepEqual(d.sources, ["json_ld"]);
});

test("Open Graph and product:price tags", () => {
  const d = extractProductDetails(OPEN_GRAPH_PAGE, "https://outdoor.example/trail");
  assert.equal(d.title, "Trail Runner 2");
  assert.equal(d.description, "Lightweight trail shoe with a grippy sole.");
  assert.equal(d.price, 119);
  assert.equal(d.currency, "USD");
  assert.equal(d.brand, "Outdoor Co");
  assert.deepEqual(d.image_urls, [
    "https://cdn.example.com/shoe.jpg",
    "https://cdn.example.com/shoe-side.jpg",
  ]);
  assert.deepEqual(d.sources, ["open_graph"]);
});

test("meta-only page gives title and description, nothing else", () => {
  const d = extractProductDetails(META_ONLY_PAGE, "https://mugs.example/");
  assert.equal(d.title, "Handmade Mug");
  assert.equal(d.description, "Stoneware mug, 350 ml, dishwasher safe.");
  assert.equal(d.price, undefined);
  assert.equal(d.currency, undefined);
  assert.deepEqual(d.image_urls, []);
  assert.deepEqual(d.sources, ["meta"]);
});

test("AggregateOffer lowPrice with a decimal comma, @type arrays, plain brand string", () => {
  const d = extractProductDetails(AGGREGATE_OFFER_PAGE, "https://lamps.example/a/b");
  assert.equal(d.title, "Desk Lamp");
  assert.equal(d.price, 1299);
  assert.equal(d.currency, "EUR");
  assert.equal(d.brand, "Luxo");
  assert.deepEqual(d.image_urls, ["https://lamps.example/a/lamp.png"]);
});

test("non-http image URLs and garbage are dropped; an empty page yields no fields", () => {
  const d = extractProductDetails(
    `<meta property="og:image" content="javascript:alert(1)"><meta property="og:image" content="data:image/png;base64,AA">`,
    "https://x.example/",
  );
  assert.deepEqual(d.image_urls, []);
  const empty = extractProductDetails("", "https://x.example/");
  assert.deepEqual(empty, { image_urls: [], sources: [] });
});

test("a signed, exponent or ranged price string is unknown, never a different amount", () => {
  const page = (price: string) =>
    `<html><head><script type="application/ld+json">{"@type":"Product","name":"X","offers":{"price":${JSON.stringify(price)},"priceCurrency":"USD"}}</script></head></html>`;
  for (const bad of ["-3", "1e400", "2E3", "10 to 20", "+5"]) {
    assert.equal(extractProductDetails(page(bad), "https://shop.example/").price, undefined, bad);
  }
  const good: Array<[string, number]> = [
    ["12.50", 12.5],
    ["$12.50", 12.5],
    ["12,50 EUR", 12.5],
    ["1 299,00", 1299],
    ["USD 1,299.99", 1299.99],
  ];
  for (const [text, value] of good) {
    assert.equal(extractProductDetails(page(text), "https://shop.example/").price, value, text);
  }
});

test("a crafted 1 MB page is analysed in well under 200 ms (no backtracking price scan, work capped per page)", () => {
  // Each price text is digits, a long run of separators, then a letter and a digit: the shape that made the
  // former price regular expression backtrack quadratically (seconds for a 100 KB page).
  const evil = `1${" ".repeat(60_000)}a1`;
  const parts = [
    `<html><head><title>T</title>`,
    `<meta property="product:price:amount" content="${evil}">`,
    `<meta property="og:price:amount" content="${evil}">`,
    `<script type="application/ld+json">${JSON.stringify({ "@type": "Product", name: "P", offers: { price: evil } })}</script>`,
  ];
  const filler = `<meta property="og:image" content="/i.jpg"><p>${"x ".repeat(200)}</p>`;
  let html = parts.join("");
  while (html.length < 1024 * 1024) html += filler;
  html += "</head></html>";
  assert.ok(html.length >= 1024 * 1024);
  extractProductDetails("<p>warm-up</p>", "https://x.example/");
  const started = performance.now();
  const d = extractProductDetails(html, "https://x.example/");
  const elapsed = performance.now() - started;
  assert.equal(d.title, "P");
  assert.equal(d.price, undefined, "a price text with a second number is unknown");
  assert.ok(elapsed < 200, `analysis took ${elapsed.toFixed(0)} ms`);
});

test("price texts keep their meaning after the linear rewrite", () => {
  const price = (content: string) =>
    extractProductDetails(
      `<meta property="og:title" content="x"><meta property="product:price:amount" content="${content}">`,
      "https://x.example/",
    ).price;
  assert.equal(price("$12.50"), 12.5);
  assert.equal(price("12,50 EUR"), 12.5);
  assert.equal(price("1 299,00"), 1299);
  assert.equal(price("1,299.00"), 1299);
  assert.equal(price("-3"), undefined);
  assert.equal(price("10 to 20"), undefined);
  assert.equal(price("1e400"), undefined);
  assert.equal(price(`${"9".repeat(70)}`), undefined, "over-long price texts are not read");
});

test("deeply nested JSON-LD image values are read to a bounded depth, never recursed without end", () => {
  const deep = `${"[".repeat(100_000)}"/deep.jpg"${"]".repeat(100_000)}`;
  const html = `<script type="application/ld+json">{"@type":"Product","name":"Deep","image":[["/a.jpg"],${deep}]}</script>`;
  const d = extractProductDetails(html, "https://x.example/");
  assert.equal(d.title, "Deep");
  assert.deepEqual(d.image_urls, ["https://x.example/a.jpg"]);
});
