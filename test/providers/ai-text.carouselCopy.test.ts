/**
 * Carousel copy from the text providers: the local provider composes every slide from the product's facts
 * and the brief (no fixed sentence that ignores them), slides differ, a new variant says something else;
 * the openai-compatible provider sends the facts as data and bounds the answer (local fake server).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { localAiText } from "../../src/providers/ai-text/local.ts";
import { remoteText } from "../helpers/remote-text.ts";
import type { CarouselCopyRequest } from "../../src/providers/ai-text/types.ts";

const roles = ["hook", "feature", "feature", "feature", "price", "cta"];
const request = (over: Partial<CarouselCopyRequest["subject"]> = {}, variant = 0): CarouselCopyRequest => ({
  subject: {
    kind: "product",
    name: "Trail Runner 2",
    brand: "Peak",
    description: "Grippy lugs for wet rock. Weighs only 240 grams. Recycled mesh upper keeps feet cool.",
    price: 119,
    currency: "EUR",
    tags: ["trail"],
    brief: "Lightweight shoes for a rainy weekend. Wet rock is no problem.",
    ...over,
  },
  slides: roles.map((role, i) => ({ position: i + 1, role })),
  variant,
});
const signal = new AbortController().signal;

test("local: every slide differs and is built from the product's facts and the brief", async () => {
  const copy = await localAiText.carouselCopy(request(), signal);
  assert.equal(copy.length, 6);
  assert.equal(new Set(copy.map((c) => c.headline)).size, 6, "different headlines");
  assert.match(copy[0]!.headline, /Trail Runner 2 by Peak/);
  assert.match(copy[0]!.body, /rainy weekend/, "the brief leads the first slide");
  assert.match(
    `${copy[1]!.headline} ${copy[1]!.body}`,
    /wet rock/i,
    "the feature sharing words with the brief comes first",
  );
  assert.ok(
    copy.some((c) => c.headline.includes("€119")),
    "the price",
  );
  assert.match(copy[5]!.headline, /Trail Runner 2/);
  const other = await localAiText.carouselCopy(
    request({ name: "Glow Serum", description: "Vitamin C. Brightens." }),
    signal,
  );
  assert.notDeepEqual(
    other.map((c) => c.headline),
    copy.map((c) => c.headline),
    "another product gives other words",
  );
});

test("local: the next variant says something else on the slide being redone", async () => {
  const first = await localAiText.carouselCopy(request(), signal);
  const second = await localAiText.carouselCopy(request({}, 1), signal);
  assert.notEqual(second[1]!.headline, first[1]!.headline);
  assert.notEqual(second[0]!.headline, first[0]!.headline);
});

const { fake, remote, setReply } = await remoteText();

test("openai-compatible: the facts and brief go as data; the answer is bounded and must cover every slide", async () => {
  setReply({
    slides: roles.map((r, i) => ({ headline: `${r} ${i} ${"x".repeat(200)}`, body: `body ${i}` })),
  });
  const copy = await remote.carouselCopy(request(), signal);
  assert.equal(copy.length, 6);
  assert.ok(copy.every((c) => c.headline.length <= 120));
  const sent = JSON.parse(fake.requests.at(-1)!.body.messages[1].content);
  assert.equal(sent.data.subject.brief, "Lightweight shoes for a rainy weekend. Wet rock is no problem.");
  assert.equal(sent.data.slides.length, 6);
  setReply({ slides: [{ headline: "only one", body: "" }] });
  await assert.rejects(remote.carouselCopy(request(), signal), (e: any) => e.code === "internal_error");
});
