/**
 * Images in parallel (docs/providers.md "Media stack: slides and images"): a carousel render draws up to
 * AI_IMAGE_CONCURRENCY slides at once through the openai-compatible image adapter against the strict Images
 * API fake (test/fakes/openai-images.ts, which counts the requests in flight and can hold chosen ones),
 * checkpoints each slide as it finishes, charges credits once per generated image (at the call, as before)
 * and leaves only the failed slides to retry_carousel. No timing is asserted: the fake's gate holds requests
 * until the state under test is reached.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { processCarouselRender } from "../../src/operations/render.ts";
import { openAiCompatibleImage } from "../../src/providers/ai-image/openai-compatible.ts";
import { handler as generateHandler } from "../../src/tools/carousels/generate_carousel.ts";
import { handler as retryHandler } from "../../src/tools/carousels/retry_carousel.ts";
import { invalidValue } from "../fakes/openai-api.ts";
import { startFakeImageServer } from "../fakes/openai-images.ts";
import { startTestApp } from "../helpers/app.ts";
import { waitFor } from "../operations/helpers.ts";
import { balance, key, product, toolContext } from "../tools/carousels/fixtures.ts";

const CONCURRENCY = 3;
const fake = await startFakeImageServer();
const image = openAiCompatibleImage({ baseUrl: fake.baseUrl, model: "gpt-image-1.5", timeoutSeconds: 60 });
const app = await startTestApp({
  queue: false,
  providers: { image },
  env: { AI_IMAGE_CONCURRENCY: String(CONCURRENCY) },
});
const me = await app.user();
await grantCredits(app.ctx.db, me.user_id, 500, "test:grant");
after(() => fake.close());

/** Accepts generate_carousel (the credits are charged here) and hands the run over, as the pipeline does. */
async function accepted(slideCount: 4 | 6) {
  const input = {
    product_id: await product(app, me),
    slide_count: slideCount,
    design_id: "bold-minimal",
    idempotency_key: key(),
  };
  const a = await app.ctx.db.transaction((trx) => generateHandler.accept(input, toolContext(app, me, trx)));
  await generateHandler.execute(input, toolContext(app, me), a.data);
  return { postId: a.data.post_id, runId: a.data.run_id, credits: a.credits_charged };
}

const slides = (
  postId: string,
): Promise<Array<{ position: number; status: string; image_asset_id: string }>> =>
  app.ctx.db("carousel_slides").where({ post_id: postId }).orderBy("position");
const imageRequests = () => fake.requests.filter((r) => r.path === "/v1/images/generations").length;

/** Holds each request until `CONCURRENCY` are in flight (or 20 s pass: then the bound was never reached). */
const untilFull = async () => {
  await waitFor(
    async () => fake.inFlight,
    (n) => n >= CONCURRENCY,
    20_000,
    10,
  ).catch(() => {});
};

test("a render keeps at most AI_IMAGE_CONCURRENCY image requests in flight, and reaches that many", async () => {
  fake.maxInFlight = 0;
  fake.gate = untilFull;
  try {
    const before = await balance(app, me);
    const g = await accepted(6);
    assert.equal(before - (await balance(app, me)), 30, "5 credits per generated image, charged at the call");
    const requests = imageRequests();
    assert.deepEqual(await processCarouselRender(app.ctx, g.runId), { claimed: true, status: "succeeded" });
    assert.equal(fake.maxInFlight, CONCURRENCY);
    assert.equal(imageRequests() - requests, 6, "one image per slide");
    assert.equal(before - (await balance(app, me)), 30, "nothing more charged by the render");
  } finally {
    fake.gate = undefined;
  }
});

test("slides are checkpointed as they finish: one image held forever, the others are ready; a takeover draws only it", async () => {
  const g = await accepted(4);
  const before = await balance(app, me);
  const first = imageRequests();
  let release: (() => void) | undefined;
  // The second image request of the render is held until the test lets it go; the others are answered.
  fake.gate = ({ n }) =>
    n === first + 2 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
  const stopping = new AbortController();
  const rendering = processCarouselRender(app.ctx, g.runId, { signal: stopping.signal });
  const three = await waitFor(
    () => slides(g.postId),
    (rows) => rows.filter((s) => s.status === "ready").length === 3,
  );
  const held = three.find((s) => s.status !== "ready")!;
  assert.equal(held.status, "generating");
  // The worker stops: the run is given back with its three checkpoints.
  stopping.abort(new Error("worker stopping"));
  assert.equal((await rendering).claimed, true);
  release?.();
  fake.gate = undefined;
  assert.equal((await app.ctx.db("carousel_runs").where({ id: g.runId }).first()).status, "queued");
  const resumed = imageRequests();
  assert.deepEqual(await processCarouselRender(app.ctx, g.runId), { claimed: true, status: "succeeded" });
  assert.equal(imageRequests() - resumed, 1, "only the unfinished slide is drawn again");
  const done = await slides(g.postId);
  for (const s of three.filter((x) => x.status === "ready"))
    assert.equal(done.find((x) => x.position === s.position)!.image_asset_id, s.image_asset_id);
  assert.ok(done.every((s) => s.status === "ready"));
  assert.equal(await balance(app, me), before, "the takeover charges nothing");
});

test("one image refused does not lose the others' checkpoints; retry_carousel draws and charges only it", async () => {
  const g = await accepted(6);
  // The first image request is refused (a 400 with the API's error body); the five others succeed.
  fake.faults.push(invalidValue("size", "1x1", "'auto'"));
  assert.deepEqual(await processCarouselRender(app.ctx, g.runId), { claimed: true, status: "failed" });
  const rows = await slides(g.postId);
  assert.equal(rows.filter((s) => s.status === "ready").length, 5);
  const failed = rows.filter((s) => s.status === "failed").map((s) => s.position);
  assert.equal(failed.length, 1);

  const before = await balance(app, me);
  const requests = imageRequests();
  const input = { post_id: g.postId, idempotency_key: key() };
  const r = await app.ctx.db.transaction((trx) => retryHandler.accept!(input, toolContext(app, me, trx)));
  assert.equal(r.credits_charged, 5);
  await retryHandler.execute(input, toolContext(app, me), r.data);
  assert.deepEqual(await processCarouselRender(app.ctx, r.data.run_id), {
    claimed: true,
    status: "succeeded",
  });
  assert.equal(imageRequests() - requests, 1, "only the failed slide is drawn again");
  assert.equal(before - (await balance(app, me)), 5);
  const done = await slides(g.postId);
  assert.ok(done.every((s) => s.status === "ready"));
  for (const s of rows.filter((x) => x.status === "ready"))
    assert.equal(done.find((x) => x.position === s.position)!.image_asset_id, s.image_asset_id);
});

/** A gate that holds every image request for which `hold(n)` is true until `release()`; counts arrivals. */
function holdingGate(hold: (n: number) => boolean) {
  const waiting: Array<() => void> = [];
  let arrived = 0;
  fake.gate = ({ n }) => {
    arrived += 1;
    return hold(n) ? new Promise<void>((resolve) => waiting.push(resolve)) : Promise.resolve();
  };
  return {
    arrived: () => arrived,
    release() {
      fake.gate = undefined;
      for (const go of waiting.splice(0)) go();
    },
  };
}

test("a slide is drawn and checkpointed as soon as its image arrives, before the last image is even requested", async () => {
  const g = await accepted(6);
  const before = await balance(app, me);
  const first = imageRequests();
  // Only the render's first image is answered; every other request is held.
  const gate = holdingGate((n) => n !== first + 1);
  try {
    const rendering = processCarouselRender(app.ctx, g.runId);
    const rows = await waitFor(
      () => slides(g.postId),
      (r) => r.some((s) => s.status === "ready"),
    );
    const ready = rows.filter((s) => s.status === "ready");
    assert.equal(ready.length, 1);
    assert.ok(ready[0]!.image_asset_id, "the drawn slide is stored with its checkpoint");
    assert.ok(
      rows.filter((s) => s.status !== "ready").every((s) => s.status === "generating"),
      "the other slides are still waiting for their images",
    );
    await waitFor(
      async () => fake.inFlight,
      (n) => n === CONCURRENCY,
    );
    assert.equal(gate.arrived(), 1 + CONCURRENCY, "the sixth image is not even requested yet");
    gate.release();
    assert.deepEqual(await rendering, { claimed: true, status: "succeeded" });
  } finally {
    gate.release();
  }
  assert.equal(imageRequests() - first, 6, "one image per slide");
  assert.equal(await balance(app, me), before, "the render charges nothing: 5 credits per image at the call");
  const done = await slides(g.postId);
  assert.ok(done.every((s) => s.status === "ready"));
  assert.equal(new Set(done.map((s) => s.image_asset_id)).size, 6);
});

test("the images are requested while the slides' copy is being drafted; the copy and caption still land", async () => {
  const g = await accepted(4);
  const text = app.ctx.providers.text;
  let releaseCopy!: () => void;
  const copyHeld = new Promise<void>((resolve) => (releaseCopy = resolve));
  let drafting = false;
  app.ctx.providers.text = {
    ...text,
    carouselCopy: async (request, signal) => {
      drafting = true;
      await copyHeld;
      return text.carouselCopy(request, signal);
    },
  };
  const gate = holdingGate(() => true);
  try {
    const rendering = processCarouselRender(app.ctx, g.runId);
    // The copy is held: every image request of the bound still arrives.
    await waitFor(
      async () => gate.arrived(),
      (n) => n === CONCURRENCY,
    );
    assert.equal(drafting, true);
    releaseCopy();
    gate.release();
    assert.deepEqual(await rendering, { claimed: true, status: "succeeded" });
  } finally {
    app.ctx.providers.text = text;
    releaseCopy();
    gate.release();
  }
  const rows: Array<{ headline: string | null; body: string | null }> = await app.ctx
    .db("carousel_slides")
    .where({ post_id: g.postId });
  assert.ok(rows.every((s) => s.headline && s.body));
  const post = await app.ctx.db("posts").where({ id: g.postId }).first("caption");
  assert.ok(post.caption, "the caption is written during the render");
});

test("a slide's image is recorded with its checkpoint: a checkpoint that cannot be saved leaves no media asset", async () => {
  const g = await accepted(4);
  const generatedAssets = async () =>
    Number(
      (
        await app.ctx
          .db("media_assets")
          .where({ user_id: me.user_id, source: "generated" })
          .count<{ n: string }[]>("* as n")
      )[0]!.n,
    );
  const assetsBefore = await generatedAssets();
  // The database refuses slide 3's `ready` checkpoint, as if the worker died between the two writes.
  await app.ctx.db.raw(`
    create function refuse_slide_3() returns trigger language plpgsql as $$
    begin
      if new.position = 3 and new.status = 'ready' then raise exception 'checkpoint refused by the test'; end if;
      return new;
    end $$;
    create trigger refuse_slide_3 before update on carousel_slides for each row execute function refuse_slide_3();
  `);
  try {
    // The render stops unexpectedly (a database error is not a slide's failure) and fails the run.
    assert.deepEqual(await processCarouselRender(app.ctx, g.runId), { claimed: true, status: "failed" });
  } finally {
    await app.ctx.db.raw("drop trigger refuse_slide_3 on carousel_slides; drop function refuse_slide_3();");
  }
  const rows = await slides(g.postId);
  const ready = rows.filter((s) => s.status === "ready");
  assert.ok(rows.find((s) => s.position === 3)!.image_asset_id === null, "slide 3 points at no image");
  assert.equal(
    (await generatedAssets()) - assetsBefore,
    ready.length,
    "one generated asset per ready slide, none for the refused checkpoint",
  );
});
