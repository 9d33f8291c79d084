/**
 * The post view's network previews (src/mcp/apps/view-post.ts): the caption cut where each network's limit
 * of the rule table cuts it (X with twitter-text's weighted length: URLs 23, emoji 2), and which networks a
 * post is previewed for.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cutCaption, networkPreview, previewNetworks } from "../../src/mcp/apps/view-post.ts";
import { captionLength } from "../../src/providers/social/rule-check.ts";

test("a caption within the limit is kept whole", () => {
  assert.deepEqual(cutCaption("instagram", "Short and sweet"), { kept: "Short and sweet", cut: "" });
  const exact = "a".repeat(280);
  assert.deepEqual(cutCaption("x", exact), { kept: exact, cut: "" });
});

test("X cuts at 280 weighted characters: a URL counts 23, an emoji 2, whatever their length", () => {
  const caption = `${"Glow ".repeat(40)}https://shop.example.com/products/glow-serum-30ml?ref=social 🌟🌟🌟 ${"more ".repeat(20)}`;
  const { kept, cut } = cutCaption("x", caption);
  assert.equal(kept + cut, caption);
  assert.ok(captionLength("x", kept) <= 280, `kept weighs ${captionLength("x", kept)}`);
  const oneMore = [...caption].slice(0, [...kept].length + 1).join("");
  assert.ok(captionLength("x", oneMore) > 280, "the cut is at the last character that fits");
  assert.ok(
    kept.includes("https://shop.example.com/products/glow-serum-30ml?ref=social"),
    "the URL counts 23",
  );
});

test("Pinterest cuts at 500 code points, counting an emoji once", () => {
  const caption = "🌿".repeat(499) + "ab";
  const { kept, cut } = cutCaption("pinterest", caption);
  assert.equal([...kept].length, 500);
  assert.equal(cut, "b");
});

test("a preview lists the rules the post breaks on that network (YouTube's description counted in UTF-8 bytes)", () => {
  const p = networkPreview("youtube", "A video caption", []);
  assert.equal(p.label, "YouTube");
  assert.deepEqual(p.caption, {
    counting: "utf8-bytes",
    limit: 5000,
    length: 15,
    kept: "A video caption",
    cut: "",
  });
  assert.deepEqual(p.problems, ["YouTube needs a video; this post has none"]);
});

test("previewed networks: the approval's destinations, else the deliveries', else all seven, in table order", () => {
  const post = (networks: string[]) => ({
    post_id: "p",
    type: "image",
    status: "draft",
    title: null,
    caption: null,
    caption_provider: null,
    media: [],
    media_provider: null,
    deliveries: networks.map((n, i) => ({
      delivery_id: String(i),
      network: n,
      label: n,
      status: "published",
      post_url: null,
      reason: null,
      scheduled_for: null,
      first_comment: null,
    })),
    first_comment: null,
  });
  assert.deepEqual(previewNetworks(["x", "instagram"], post(["linkedin"])), ["instagram", "x"]);
  assert.deepEqual(previewNetworks([], post(["linkedin", "facebook"])), ["facebook", "linkedin"]);
  assert.deepEqual(previewNetworks([], null), [
    "instagram",
    "tiktok",
    "facebook",
    "youtube",
    "linkedin",
    "pinterest",
    "x",
  ]);
});
