/**
 * The caption of a generated carousel through the openai-compatible text provider against the strict Chat
 * Completions fake (test/fakes/openai-chat.ts: strict json_schema checked, the real error body): the
 * `post_caption` request carries the product and every slide's copy as data, and the post stores the
 * assembled caption with our product link; when the provider's answer is unusable, the offline local
 * provider writes the caption and the render still succeeds.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler as generateHandler } from "../../../src/tools/carousels/generate_carousel.ts";
import { handler as getCarouselHandler } from "../../../src/tools/carousels/get_carousel.ts";
import { remoteText } from "../../helpers/remote-text.ts";
import { inline, key, named, product, queued, setup } from "./fixtures.ts";

const generate = named("generate_carousel", generateHandler);
const getCarousel = named("get_carousel", getCarouselHandler);
const { fake, remote } = await remoteText();
const { app, me } = await setup("creator", { text: remote });
const productId = await product(app, me);

let captionReply: unknown;
const sampleReply = fake.reply;
fake.reply = (body) =>
  body?.response_format?.json_schema?.name === "post_caption" ? captionReply : sampleReply(body);

async function carouselCaption(): Promise<string | null> {
  const { accepted, render } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  assert.deepEqual(render, { claimed: true, status: "succeeded" });
  return (await inline(app, me, getCarousel, { post_id: accepted.data.post_id })).data.caption;
}

test("openai-compatible: the caption is asked once with the slides' copy and stored with our link", async () => {
  captionReply = {
    hook: "Brighter skin starts here",
    lines: ["Vitamin C in every drop.", "Absorbs in seconds, no fragrance."],
    call_to_action: "Try it today",
    hashtags: ["#skincare", "#vitaminc", "#glow"],
  };
  const before = fake.requests.length;
  const caption = await carouselCaption();
  assert.equal(
    caption,
    "Brighter skin starts here\nVitamin C in every drop.\nAbsorbs in seconds, no fragrance.\nTry it today https://shop.example.com/glow\n\n#skincare #vitaminc #glow",
  );
  const asked = fake.requests
    .slice(before)
    .filter((r) => r.body.response_format.json_schema.name === "post_caption");
  assert.equal(asked.length, 1, "one caption request per carousel");
  assert.equal(asked[0]!.body.response_format.json_schema.strict, true);
  const data = JSON.parse(asked[0]!.body.messages[1].content).data;
  assert.equal(data.subject.name, "Glow Serum");
  assert.equal(data.slides.length, 4, "every slide's copy is sent");
  assert.ok(data.slides.every((s: { headline: string }) => s.headline.length > 0));
});

test("openai-compatible: an unusable answer falls back to the local provider's caption", async () => {
  captionReply = { hook: "Hi", lines: ["only one"], call_to_action: "Buy", hashtags: [] };
  const caption = await carouselCaption();
  assert.ok(caption?.startsWith("Meet Glow Serum."), caption ?? "null");
  assert.match(caption!, /https:\/\/shop\.example\.com\/glow\n\n#/);
});
