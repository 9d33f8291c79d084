import assert from "node:assert/strict";
import { test } from "node:test";
import { localAiText } from "../../src/providers/ai-text/local.ts";

const signal = new AbortController().signal;
const subject = {
  kind: "product" as const,
  name: "Glow Serum",
  description: "Vitamin C face serum, 30 ml. Made in Portugal.",
  brand: "Lumen",
  price: 29.9,
  currency: "EUR",
  tags: ["skincare", "vitamin c"],
};

test("local captions are deterministic, built from product fields, hashtags well-formed", async () => {
  const a = await localAiText.captions({ subject, count: 3, tone: "playful", network: "instagram" }, signal);
  const b = await localAiText.captions({ subject, count: 3, tone: "playful", network: "instagram" }, signal);
  assert.deepEqual(a, b);
  assert.equal(a.length, 3);
  assert.equal(new Set(a.map((v) => v.hook)).size, 3);
  for (const v of a) {
    assert.match(v.caption, /Glow Serum/);
    assert.match(v.caption, /€29\.90/);
    assert.match(v.caption, /Vitamin C face serum, 30 ml\./);
    for (const h of v.hashtags) assert.match(h, /^#[^\s#]+$/);
    assert.ok(v.hashtags.includes("#Lumen"));
  }
});

test("include_hashtags false gives none; hooks are bounded to 80 characters", async () => {
  const [v] = await localAiText.captions(
    { subject, count: 1, tone: "minimal", includeHashtags: false },
    signal,
  );
  assert.deepEqual(v!.hashtags, []);
  assert.doesNotMatch(v!.caption, /#/);
  const hooks = await localAiText.ugcHooks(
    { subject: { kind: "brief", brief: "x".repeat(500) }, count: 10, tone: "bold" },
    signal,
  );
  assert.equal(hooks.length, 10);
  assert.equal(new Set(hooks).size, 10);
  for (const h of hooks) assert.ok(h.length <= 80);
});
