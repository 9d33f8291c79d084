/** generate_carousel, get_carousel, get_carousel_outline, list_carousel_formats over a real database. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { imageSize } from "image-size";
import { handler as generateHandler } from "../../../src/tools/carousels/generate_carousel.ts";
import { handler as getCarouselHandler } from "../../../src/tools/carousels/get_carousel.ts";
import { handler as getOutlineHandler } from "../../../src/tools/carousels/get_carousel_outline.ts";
import { handler as formatsHandler } from "../../../src/tools/carousels/list_carousel_formats.ts";
import {
  balance,
  named,
  ctaArtwork,
  inline,
  key,
  product,
  queued,
  setBalance,
  setup,
  toolContext,
  toolError,
} from "./fixtures.ts";

const generate = named("generate_carousel", generateHandler);
const getCarousel = named("get_carousel", getCarouselHandler);
const getOutline = named("get_carousel_outline", getOutlineHandler);
const formats = named("list_carousel_formats", formatsHandler);

const { app, me, other, peer } = await setup();

test("list_carousel_formats lists only active designs with their formats, slide counts and prices", async () => {
  const out = await inline(app, me, formats, {});
  const ids = out.data.designs.map((d) => d.design_id);
  assert.deepEqual(ids, [
    "bold-minimal",
    "editorial-serif",
    "product-showcase",
    "quote-card",
    "split-frame",
    "story-steps",
  ]);
  assert.ok(!ids.includes("legacy-collage"));
  const showcase = out.data.designs.find((d) => d.design_id === "product-showcase")!;
  assert.deepEqual(showcase.slide_counts, [4, 6, 8]);
  // Six designs, six different layouts, each with its palette, fonts and a preview of a sample slide.
  assert.equal(new Set(out.data.designs.map((d) => d.layout)).size, 6);
  for (const d of out.data.designs) {
    assert.match(d.palette.accent, /^#[0-9a-f]{6}$/);
    assert.ok(d.fonts.headline && d.fonts.body);
    assert.equal(d.preview_url, `${app.ctx.config.publicBaseUrl}/media/previews/${d.design_id}.jpg`);
  }
  assert.deepEqual(out.data.credit_prices, { generated_image: 5, stored_cta_artwork: 0 });
});

test("generate_carousel accepts, charges 30 for 6 slides and renders 6 JPEG slides of the format's size", async () => {
  const productId = await product(app, me);
  const before = await balance(app, me);
  const { accepted, result, render } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 6,
    design_id: "bold-minimal",
    format: "portrait",
    prompt: "Focus on brightness",
    idempotency_key: key(),
  });
  assert.equal(accepted.credits_charged, 30);
  assert.equal(before - (await balance(app, me)), 30);
  assert.deepEqual(Object.keys(accepted.data).sort(), ["post_id", "run_id"]);
  // The operation hands the run to the render job and succeeds at once; the render job draws the slides.
  assert.deepEqual(result.data, { ...accepted.data, status: "queued" });
  assert.deepEqual(render, { claimed: true, status: "succeeded" });
  const post = await app.ctx.db("posts").where({ id: accepted.data.post_id }).first();
  assert.equal(post.type, "carousel");
  assert.equal(post.status, "draft");
  assert.equal(post.media_asset_ids.length, 6);

  const view = await inline(app, me, getCarousel, { post_id: accepted.data.post_id });
  assert.equal(view.data.run.status, "succeeded");
  assert.equal(view.data.run.kind, "generate");
  assert.equal(view.data.run.credits_charged, 30);
  assert.equal(view.data.slides.length, 6);
  for (const s of view.data.slides) {
    assert.equal(s.status, "ready");
    const asset = await app.ctx.db("media_assets").where({ id: s.image_asset_id }).first();
    assert.equal(asset.source, "generated");
    assert.equal(asset.user_id, me.user_id);
    const stored = await app.ctx.providers.storage.read(asset.storage_key);
    const bytes = Buffer.concat(await stored.stream.toArray());
    assert.deepEqual(imageSize(bytes), { height: 1350, width: 1080, type: "jpg" });
    assert.deepEqual([asset.mime_type, asset.width, asset.height], ["image/jpeg", 1080, 1350]);
    assert.equal(bytes.length, Number(asset.bytes));
    assert.ok(bytes.length < 8 * 1024 * 1024);
  }
  // The copy comes from the text provider: product facts and the brief, a different headline per slide.
  const headlines = view.data.slides.map((s) => s.headline);
  assert.equal(new Set(headlines).size, 6);
  assert.match(headlines[0]!, /Glow Serum/);
  // "Focus on brightness" is guidance for the writer, not copy: it never appears on a slide.
  assert.ok(view.data.slides.every((s) => !/Focus on/.test(`${s.headline} ${s.body}`)));
  assert.ok(headlines.some((h) => /\$29/.test(h ?? "")));
  // The prompt is stored sealed, never in clear.
  const slide = await app.ctx.db("carousel_slides").where({ post_id: accepted.data.post_id }).first();
  assert.ok(!String(slide.image_prompt_sealed).includes("brightness"));

  const outline = await inline(app, me, getOutline, { post_id: accepted.data.post_id });
  assert.equal(outline.data.slide_count, 6);
  assert.equal(outline.data.design_id, "bold-minimal");
  assert.equal(outline.data.slides.length, 6);
  assert.match(outline.data.slides[0]!.headline, /Glow Serum/);
  assert.equal(outline.data.slides[5]!.headline, "Get Glow Serum today");
  assert.ok(outline.data.slides.some((s) => s.headline === "Yours for $29.00"));
});

test("with use_cta_artwork the last slide reuses the stored artwork: 6 slides cost 25", async () => {
  const productId = await product(app, me);
  const artwork = await ctaArtwork(app, me, productId);
  const { accepted } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 6,
    design_id: "product-showcase",
    use_cta_artwork: true,
    idempotency_key: key(),
  });
  assert.equal(accepted.credits_charged, 25);
  const view = await inline(app, me, getCarousel, { post_id: accepted.data.post_id });
  assert.ok(view.data.slides.every((s) => s.status === "ready"));
  // The artwork is cover-fitted to the format's size (square by default here) as the last slide's JPEG.
  const last = await app.ctx.db("media_assets").where({ id: view.data.slides[5]!.image_asset_id }).first();
  assert.notEqual(last.id, artwork);
  assert.deepEqual([last.mime_type, last.width, last.height], ["image/jpeg", 1080, 1080]);
  assert.ok(last.labels.includes("cta_artwork"));
});

test("use_cta_artwork without stored artwork is validation_failed and charges nothing", async () => {
  const productId = await product(app, me);
  const before = await balance(app, me);
  const err = await toolError(
    queued(app, me, generate, {
      product_id: productId,
      slide_count: 6,
      design_id: "bold-minimal",
      use_cta_artwork: true,
      idempotency_key: key(),
    }),
  );
  assert.equal(err.code, "validation_failed");
  assert.equal(await balance(app, me), before);
});

test("unsupported slide count, inactive or unknown design and unsupported format are validation_failed", async () => {
  const productId = await product(app, me);
  const cases = [
    { design_id: "product-showcase", slide_count: 5 },
    { design_id: "legacy-collage", slide_count: 4 },
    { design_id: "no-such-design", slide_count: 6 },
    { design_id: "bold-minimal", slide_count: 6, format: "story" },
  ];
  for (const c of cases) {
    const err = await toolError(
      queued(app, me, generate, { product_id: productId, ...c, idempotency_key: key() } as never),
    );
    assert.equal(err.code, "validation_failed", JSON.stringify(c));
  }
});

test("a product of another workspace or of another member is not_found", async () => {
  for (const owner of [other, peer]) {
    const productId = await product(app, owner);
    const err = await toolError(
      queued(app, me, generate, {
        product_id: productId,
        slide_count: 6,
        design_id: "bold-minimal",
        idempotency_key: key(),
      }),
    );
    assert.equal(err.code, "not_found");
  }
  const mine = await product(app, me);
  const { accepted } = await queued(app, me, generate, {
    product_id: mine,
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  for (const who of [other, peer]) {
    assert.equal(
      (await toolError(inline(app, who, getCarousel, { post_id: accepted.data.post_id }))).code,
      "not_found",
    );
    assert.equal(
      (await toolError(inline(app, who, getOutline, { post_id: accepted.data.post_id }))).code,
      "not_found",
    );
  }
});

test("insufficient credits are refused before any record is created", async () => {
  const poor = await app.user();
  const productId = await product(app, poor);
  await setBalance(app, poor, 29);
  const err = await toolError(
    queued(app, poor, generate, {
      product_id: productId,
      slide_count: 6,
      design_id: "bold-minimal",
      idempotency_key: key(),
    }),
  );
  assert.equal(err.code, "forbidden");
  assert.match(err.message, /insufficient credits/);
  assert.equal(await balance(app, poor), 29);
  assert.equal((await app.ctx.db("posts").where({ user_id: poor.user_id })).length, 0);
  assert.equal((await app.ctx.db("carousel_runs").where({ user_id: poor.user_id })).length, 0);
});

test("accept refuses to run outside the caller's transaction", async () => {
  const productId = await product(app, me);
  await assert.rejects(
    generate.accept!(
      { product_id: productId, slide_count: 4, design_id: "bold-minimal", idempotency_key: key() },
      toolContext(app, me),
    ),
    /transaction/,
  );
});
