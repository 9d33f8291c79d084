/**
 * The caption of a generated carousel through the openai-compatible text provider against the strict Chat
 * Completions fake (test/fakes/openai-chat.ts: strict json_schema checked, the real error body): the
 * `post_caption` request carries the product and every slide's copy as data, and the post stores the
 * assembled caption with our product link, marked `caption_provider: "openai-compatible"`. When the
 * provider's answer is unusable the run fails with the provider's error (the slides stay ready, no caption
 * is made up); only with AI_FALLBACK=local does the offline local provider write it, marked `local`.
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
/** The slides' copy the model writes: one headline and body per slide asked. */
const copyReply = (body: any) => ({
  slides: JSON.parse(body.messages[1].content).data.slides.map((s: { position: number }) => ({
    headline: `Glow Serum slide ${s.position}`,
    body: `Vitamin C fact number ${s.position}.`,
  })),
});
fake.reply = (body) => {
  const name = body?.response_format?.json_schema?.name;
  return name === "post_caption"
    ? captionReply
    : name === "carousel_copy"
      ? copyReply(body)
      : sampleReply(body);
};

async function carouselCaption(status = "succeeded") {
  const { accepted, render } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  assert.deepEqual(render, { claimed: true, status });
  const carousel = (await inline(app, me, getCarousel, { post_id: accepted.data.post_id })).data;
  return { caption: carousel.caption, carousel };
}

test("openai-compatible: the caption is asked once with the slides' copy and stored with our link", async () => {
  captionReply = {
    hook: "Brighter skin starts here",
    lines: ["Vitamin C in every drop.", "Absorbs in seconds, no fragrance."],
    call_to_action: "Try it today",
    hashtags: ["#skincare", "#vitaminc", "#glow"],
  };
  const before = fake.requests.length;
  const { caption, carousel } = await carouselCaption();
  assert.equal(carousel.caption_provider, "openai-compatible");
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

test("openai-compatible: an unusable answer fails the run with the provider's error; no caption is made up", async () => {
  captionReply = { hook: "Hi", lines: ["only one"], call_to_action: "Buy", hashtags: [] };
  const { caption, carousel } = await carouselCaption("failed");
  assert.equal(caption, null, "no stand-in caption");
  assert.equal(carousel.caption_provider, null);
  assert.ok(
    carousel.slides.every((s: { status: string }) => s.status === "ready"),
    "the paid slides stay ready",
  );
  const run = await app.ctx.db("carousel_runs").where({ id: carousel.run.run_id }).first("status", "error");
  assert.equal(run.status, "failed");
  assert.match(
    run.error,
    /^the AI text provider could not write the caption \(the AI text provider failed; try again later\); pass your own caption to approve_carousel/,
  );
});

test("AI_FALLBACK=local: an unusable answer gets the local provider's caption, marked local", async () => {
  captionReply = { hook: "Hi", lines: ["only one"], call_to_action: "Buy", hashtags: [] };
  app.ctx.config.aiFallback = "local";
  try {
    const { caption, carousel } = await carouselCaption();
    assert.ok(caption?.startsWith("Meet Glow Serum."), caption ?? "null");
    assert.match(caption!, /https:\/\/shop\.example\.com\/glow\n\n#/);
    assert.equal(carousel.caption_provider, "local");
  } finally {
    app.ctx.config.aiFallback = "none";
  }
});
