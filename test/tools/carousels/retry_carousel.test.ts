/** Checkpoint retry, targeted regeneration and approval of carousels, with an image provider that fails. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { localImageProvider } from "../../../src/providers/ai-image/local.ts";
import { ImageGenerationError, type ImageProvider } from "../../../src/providers/ai-image/types.ts";
import { handler as approveHandler } from "../../../src/tools/carousels/approve_carousel.ts";
import { handler as generateHandler } from "../../../src/tools/carousels/generate_carousel.ts";
import { handler as getCarouselHandler } from "../../../src/tools/carousels/get_carousel.ts";
import { handler as regenerateHandler } from "../../../src/tools/carousels/regenerate_carousel_slide.ts";
import { handler as retryHandler } from "../../../src/tools/carousels/retry_carousel.ts";
import {
  balance,
  named,
  inline,
  key,
  product,
  queued,
  reviewed,
  setBalance,
  setup,
  toolContext,
  toolError,
} from "./fixtures.ts";

const approve = named("approve_carousel", approveHandler);
const generate = named("generate_carousel", generateHandler);
const getCarousel = named("get_carousel", getCarouselHandler);
const regenerate = named("regenerate_carousel_slide", regenerateHandler);
const retry = named("retry_carousel", retryHandler);

/** Fails every image whose seed ends with one of the listed slide positions, until `healed`. */
const failing = { positions: new Set<number>(), calls: 0 };
const local = localImageProvider();
const provider: ImageProvider = {
  name: "flaky",
  async generate(req, signal) {
    failing.calls += 1;
    const position = Number(req.seed.split(":")[1]);
    if (failing.positions.has(position)) throw new ImageGenerationError("the image model refused this slide");
    return local.generate(req, signal);
  },
};

const { app, me, other, peer } = await setup("creator", { image: provider });

async function failedCarousel() {
  failing.positions = new Set([2, 4]);
  const productId = await product(app, me);
  const { accepted, render } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 6,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  failing.positions = new Set();
  return { postId: accepted.data.post_id, render };
}

test("failed slides stay failed and the run fails; retry_carousel charges and regenerates only those", async () => {
  const { postId, render } = await failedCarousel();
  assert.equal(render?.status, "failed");
  const view = await inline(app, me, getCarousel, { post_id: postId });
  assert.deepEqual(
    view.data.slides.filter((s) => s.status === "failed").map((s) => s.position),
    [2, 4],
  );
  const readyBefore = new Map(
    view.data.slides.filter((s) => s.status === "ready").map((s) => [s.position, s.image_asset_id]),
  );

  const before = await balance(app, me);
  failing.calls = 0;
  const { accepted, render: retried } = await queued(app, me, retry, {
    post_id: postId,
    idempotency_key: key(),
  });
  assert.equal(accepted.credits_charged, 10);
  assert.equal(before - (await balance(app, me)), 10);
  assert.equal(failing.calls, 2);
  assert.equal(retried?.status, "succeeded");
  const after = await inline(app, me, getCarousel, { post_id: postId });
  assert.equal(after.data.run.kind, "retry");
  assert.ok(after.data.slides.every((s) => s.status === "ready"));
  for (const [position, assetId] of readyBefore)
    assert.equal(after.data.slides[position - 1]!.image_asset_id, assetId);

  const nothing = await toolError(queued(app, me, retry, { post_id: postId, idempotency_key: key() }));
  assert.equal(nothing.code, "validation_failed");
});

test("retry_carousel with too few credits for the failed slides is refused before any work", async () => {
  const poor = await app.user();
  const productId = await product(app, poor);
  failing.positions = new Set([1, 2, 3]);
  const { accepted } = await queued(app, poor, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  failing.positions = new Set();
  await setBalance(app, poor, 14);
  const err = await toolError(
    queued(app, poor, retry, { post_id: accepted.data.post_id, idempotency_key: key() }),
  );
  assert.equal(err.code, "forbidden");
  assert.equal(await balance(app, poor), 14);
  assert.equal((await app.ctx.db("carousel_runs").where({ post_id: accepted.data.post_id })).length, 1);
});

test("regenerate_carousel_slide charges 5 and replaces exactly one slide", async () => {
  const productId = await product(app, me);
  const { accepted } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  const before = await inline(app, me, getCarousel, { post_id: accepted.data.post_id });
  const credits = await balance(app, me);
  const { accepted: regen, render } = await queued(app, me, regenerate, {
    post_id: accepted.data.post_id,
    position: 3,
    instructions: "Warmer colours",
    idempotency_key: key(),
  });
  assert.equal(regen.credits_charged, 5);
  assert.equal(credits - (await balance(app, me)), 5);
  assert.equal(render?.status, "succeeded");
  const after = await inline(app, me, getCarousel, { post_id: accepted.data.post_id });
  assert.equal(after.data.run.kind, "regenerate_slide");
  after.data.slides.forEach((s, i) => {
    if (s.position === 3) assert.notEqual(s.image_asset_id, before.data.slides[i]!.image_asset_id);
    else assert.equal(s.image_asset_id, before.data.slides[i]!.image_asset_id);
  });
  const bad = await toolError(
    queued(app, me, regenerate, { post_id: accepted.data.post_id, position: 9, idempotency_key: key() }),
  );
  assert.equal(bad.code, "validation_failed");
  for (const who of [other, peer]) {
    const err = await toolError(
      queued(app, who, regenerate, { post_id: accepted.data.post_id, position: 1, idempotency_key: key() }),
    );
    assert.equal(err.code, "not_found");
    assert.equal(
      (await toolError(queued(app, who, retry, { post_id: accepted.data.post_id, idempotency_key: key() })))
        .code,
      "not_found",
    );
  }
});

test("a second run while one is queued is refused", async () => {
  const productId = await product(app, me);
  const accepted = await app.ctx.db.transaction((trx) =>
    generate.accept!(
      { product_id: productId, slide_count: 4, design_id: "bold-minimal", idempotency_key: key() },
      toolContext(app, me, trx),
    ),
  );
  const err = await toolError(
    queued(app, me, regenerate, { post_id: accepted.data.post_id, position: 1, idempotency_key: key() }),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /in progress/);
});

test("approve_carousel: describe refuses an unfinished carousel; approval moves a ready one to approved", async () => {
  const { postId } = await failedCarousel();
  const notReady = await toolError(
    approve.describe!({ post_id: postId, idempotency_key: key() }, toolContext(app, me)),
  );
  assert.equal(notReady.code, "validation_failed");
  await queued(app, me, retry, { post_id: postId, idempotency_key: key() });
  for (const who of [other, peer]) {
    assert.equal(
      (await toolError(approve.describe!({ post_id: postId, idempotency_key: key() }, toolContext(app, who))))
        .code,
      "not_found",
    );
  }
  const { description, result } = await reviewed(app, me, approve, {
    post_id: postId,
    idempotency_key: key(),
  });
  assert.match(description.summary, /Approve the 6-slide carousel/);
  assert.deepEqual(description.resources, [{ kind: "post", id: postId, label: "Glow Serum" }]);
  assert.deepEqual(result.data, { post_id: postId, status: "approved" });
});

test("regenerate_carousel_slide what=copy and what=layout cost 0 and re-render from the stored image; what=image makes a new one", async () => {
  const productId = await product(app, me);
  const { accepted } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  const postId = accepted.data.post_id;
  const slide2 = () => app.ctx.db("carousel_slides").where({ post_id: postId, position: 2 }).first();
  const start = await slide2();
  assert.ok(start.visual_key, "the generated image is kept for re-renders");

  failing.calls = 0;
  const credits = await balance(app, me);
  const copy = await queued(app, me, regenerate, {
    post_id: postId,
    position: 2,
    what: "copy",
    instructions: "Mention the morning routine",
    idempotency_key: key(),
  });
  assert.equal(copy.accepted.credits_charged, 0);
  assert.equal(copy.render?.status, "succeeded");
  assert.equal(failing.calls, 0, "no image was generated");
  const afterCopy = await slide2();
  assert.equal(afterCopy.visual_key, start.visual_key);
  assert.notEqual(afterCopy.image_asset_id, start.image_asset_id, "the slide was rendered again");
  assert.notEqual(afterCopy.headline, start.headline, "new copy");

  const layout = await queued(app, me, regenerate, {
    post_id: postId,
    position: 2,
    what: "layout",
    design_id: "editorial-serif",
    idempotency_key: key(),
  });
  assert.equal(layout.accepted.credits_charged, 0);
  assert.equal(failing.calls, 0);
  const afterLayout = await slide2();
  assert.equal(afterLayout.visual_key, start.visual_key);
  assert.equal(afterLayout.design_id, "editorial-serif");
  assert.equal(afterLayout.headline, afterCopy.headline, "layout keeps the copy");
  assert.notEqual(afterLayout.image_asset_id, afterCopy.image_asset_id);
  assert.equal(await balance(app, me), credits, "copy and layout are free");

  const bad = await toolError(
    queued(app, me, regenerate, {
      post_id: postId,
      position: 2,
      what: "image",
      design_id: "quote-card",
      idempotency_key: key(),
    }),
  );
  assert.equal(bad.code, "validation_failed");
  assert.match(bad.message, /design_id applies only with what=layout/);

  const image = await queued(app, me, regenerate, {
    post_id: postId,
    position: 2,
    what: "image",
    idempotency_key: key(),
  });
  assert.equal(image.accepted.credits_charged, 5);
  assert.equal(failing.calls, 1);
  assert.notEqual((await slide2()).visual_key, start.visual_key);
});
