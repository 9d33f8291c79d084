/** The deterministic carousel outline. */
import { SLIDE_COUNTS } from "../../src/domain/carousels/formats.ts";
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildOutline } from "../../src/domain/carousels/outline.ts";

const serum = {
  name: "Glow Serum",
  description: "Brightens in a week. Absorbs in seconds.",
  brand: "Lumen",
  price_minor: 2900,
  currency: "EUR",
  product_url: "https://shop.example.com/glow",
  tags: ["skincare"],
};

test("buildOutline plans hook, features, price and CTA for every supported count, deterministically", () => {
  for (const n of SLIDE_COUNTS) {
    const o = buildOutline(serum, "bold-minimal", "square", n);
    assert.equal(o.slides.length, n);
    assert.deepEqual(
      o.slides.map((s) => s.position),
      Array.from({ length: n }, (_, i) => i + 1),
    );
    assert.equal(o.slides[0]!.role, "hook");
    assert.equal(o.slides[n - 1]!.role, "cta");
    assert.equal(o.slides.filter((s) => s.role === "price").length, 1);
    assert.deepEqual(buildOutline(serum, "bold-minimal", "square", n), o);
  }
  const noPrice = buildOutline(
    { ...serum, price_minor: null, currency: null, description: null, tags: [] },
    "story-steps",
    "story",
    5,
  );
  assert.equal(noPrice.slides.filter((s) => s.role === "price").length, 0);
  assert.ok(noPrice.slides.every((s) => s.headline.length > 0 && s.headline.length <= 80));
});
