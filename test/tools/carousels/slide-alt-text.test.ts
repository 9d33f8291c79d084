/**
 * Every generated slide gets alt text written from its own words: "Headline. Body (slide n of m)", saved on
 * its image asset, and get_post returns it in slide order.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler as generateHandler } from "../../../src/tools/carousels/generate_carousel.ts";
import { handler as getPostHandler } from "../../../src/tools/content/get_post.ts";
import { inline, key, named, product, queued, setup } from "./fixtures.ts";

const generate = named("generate_carousel", generateHandler);
const getPost = named("get_post", getPostHandler);
const { app, me } = await setup();

test("each slide's image has alt text from its headline and body, with its place", async () => {
  const productId = await product(app, me);
  const { accepted } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  const slides = await app.ctx
    .db("carousel_slides as s")
    .join("media_assets as m", "m.id", "s.image_asset_id")
    .where({ "s.post_id": accepted.data.post_id })
    .orderBy("s.position")
    .select("s.position", "s.headline", "s.body", "m.alt_text");
  assert.equal(slides.length, 4);
  for (const s of slides) {
    const words = s.body ? `${s.headline}${/[.!?…]$/.test(s.headline) ? "" : "."} ${s.body}` : s.headline;
    assert.equal(s.alt_text, `${words} (slide ${s.position} of 4)`);
  }
  const { data } = await inline(app, me, getPost, { post_id: accepted.data.post_id });
  assert.deepEqual(
    data.alt_texts,
    slides.map((s) => s.alt_text),
  );
});
