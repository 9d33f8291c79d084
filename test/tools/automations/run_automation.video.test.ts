/**
 * Video automation runs through swapped providers: the hook comes from the AI text provider for the
 * product when the configuration has none, and a failed render refunds the charge and stores nothing. A
 * text provider that fails fails the run with its error (refunded); only with AI_FALLBACK=local does the
 * local provider's hook go into the video, which then says `provider: "local"`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler as createHandler } from "../../../src/tools/automations/create_automation.ts";
import { handler as getRunHandler } from "../../../src/tools/automations/get_automation_run.ts";
import { handler as runHandler } from "../../../src/tools/automations/run_automation.ts";
import { ToolError } from "../../../src/errors.ts";
import { localAiText } from "../../../src/providers/ai-text/local.ts";
import type { HookRequest } from "../../../src/providers/ai-text/types.ts";
import { videoProvider } from "../../../src/providers/video/index.ts";
import {
  type VideoProvider,
  type VideoRequest,
  VideoRenderError,
} from "../../../src/providers/video/types.ts";
import { loadConfig } from "../../../src/config/index.ts";
import { localImageProvider } from "../../../src/providers/ai-image/local.ts";
import type { ImageRequest } from "../../../src/providers/ai-image/types.ts";
import { createMediaAsset } from "../../../src/domain/media/media.ts";
import { makeImage, photoShares, rgbFrameAt } from "../../helpers/video.ts";
import { productPhotoPng } from "../../fixtures/product-photo.ts";
import { rm, writeFile } from "node:fs/promises";
import { storedCta } from "./video-fixtures.ts";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { balance, inline, key, named, product, reviewed, setup } from "../carousels/fixtures.ts";

const create = named("create_automation", createHandler);
const run = named("run_automation", runHandler);
const getRun = named("get_automation_run", getRunHandler);

const hookRequests: HookRequest[] = [];
const rendered: Array<Omit<VideoRequest, "cta">> = [];
let failNext = false;
const real = videoProvider(loadConfig({}));
/** The real local compositor, recording each request; `failNext` makes one render fail as ffmpeg would. */
const video: VideoProvider = {
  name: "local",
  async render(request, signal) {
    rendered.push(request);
    if (failNext) {
      failNext = false;
      throw new VideoRenderError("video render failed: ffmpeg exited with 1");
    }
    return real.render(request, signal);
  },
};
let hookFails = false;
const text = {
  ...localAiText,
  name: "openai-compatible" as const,
  async ugcHooks(req: HookRequest) {
    hookRequests.push(req);
    if (hookFails)
      throw new ToolError("internal_error", "the AI text provider refused the request (HTTP 400)");
    return [`Why ${req.subject.name} sold out twice`];
  },
};
let imagesGenerated = 0;
const image = {
  name: "local",
  async generate(request: ImageRequest, signal?: AbortSignal) {
    imagesGenerated += 1;
    return localImageProvider().generate(request, signal);
  },
};
const { app, me } = await setup("pro", { text, video, image });
const productId = await product(app, me, { name: "Night Balm" });

async function fadeAutomation() {
  const out = await inline(app, me, create, {
    kind: "video",
    name: "Fade",
    configuration: { type: "fade-video", template_id: "single-fade", product_id: productId } as never,
    idempotency_key: key(),
  });
  return out.data.automation_id;
}

test("without a configured hook the video's hook text comes from the AI text provider for the product", async () => {
  const id = await fadeAutomation();
  const { result } = await reviewed(app, me, run, { automation_id: id, idempotency_key: key() });
  assert.equal(result.data.status, "succeeded");
  assert.equal(hookRequests.length, 1);
  assert.equal(hookRequests[0]!.subject.name, "Night Balm");
  assert.equal(rendered.at(-1)!.hook, "Why Night Balm sold out twice");
  const row = await app.ctx.db("automation_runs").where({ id: result.data.run_id }).first();
  assert.equal(row.result.hook, "Why Night Balm sold out twice");
  const read = await inline(app, me, getRun, { kind: "video", run_id: result.data.run_id });
  assert.ok(
    read.data.video && read.data.video.duration_seconds >= 5 && read.data.video.duration_seconds <= 8,
  );
  // The frame came from the local image provider: the video says so.
  assert.equal(read.data.video.provider, "local");
});

test("the hook's text provider fails: the run fails with its error and is refunded; AI_FALLBACK=local uses the local hook", async () => {
  const id = await fadeAutomation();
  const before = await balance(app, me);
  hookFails = true;
  try {
    const { result } = await reviewed(app, me, run, { automation_id: id, idempotency_key: key() });
    assert.equal(result.data.status, "failed");
    assert.equal(await balance(app, me), before, "refunded");
    const read = await inline(app, me, getRun, { kind: "video", run_id: result.data.run_id });
    assert.match(
      read.data.error ?? "",
      /generation failed \(the AI text provider could not write the hook \(the AI text provider refused the request \(HTTP 400\)\)\) and the 5 credits were refunded/,
    );
    const renders = rendered.length;
    // With AI_FALLBACK=local the local provider's hook goes into the render (which fails here, as ffmpeg can:
    // what matters is what it was asked to draw).
    app.ctx.config.aiFallback = "local";
    failNext = true;
    await reviewed(app, me, run, { automation_id: id, idempotency_key: key() });
    assert.equal(rendered.length, renders + 1);
    const local = await localAiText.ugcHooks(hookRequests.at(-1)!, new AbortController().signal);
    assert.equal(rendered.at(-1)!.hook, local[0]);
  } finally {
    hookFails = false;
    failNext = false;
    app.ctx.config.aiFallback = "none";
  }
});

test("a failed render marks the run failed, refunds the 5 credits once and stores no video or post", async () => {
  const id = await fadeAutomation();
  const before = await balance(app, me);
  const videosBefore = await app.ctx.db("media_assets").where({ kind: "video" }).count({ n: "*" }).first();
  failNext = true;
  const { result } = await reviewed(app, me, run, { automation_id: id, idempotency_key: key() });
  assert.equal(result.data.status, "failed");
  assert.equal(result.credits_charged, 5);
  assert.equal(await balance(app, me), before);
  const ledger = await app.ctx.db("credit_ledger").where({ reference_id: result.data.run_id }).orderBy("id");
  assert.deepEqual(
    ledger.map((l: { delta: number; reason: string }) => [Number(l.delta), l.reason]),
    [
      [-5, "charge:run_automation"],
      [5, "refund:run_automation"],
    ],
  );
  const read = await inline(app, me, getRun, { kind: "video", run_id: result.data.run_id });
  assert.equal(read.data.status, "failed");
  assert.equal(read.data.post_id, null);
  assert.equal(read.data.video, null);
  assert.match(read.data.error ?? "", /5 credits were refunded/);
  const videosAfter = await app.ctx.db("media_assets").where({ kind: "video" }).count({ n: "*" }).first();
  assert.equal(Number(videosAfter?.n), Number(videosBefore?.n));
});

test("AI UGC uses the product's stored image for the local hook clip (no image generated)", async () => {
  const png = path.join(os.tmpdir(), `smcp-product-${key()}.png`);
  await makeImage(png, "smptebars");
  const bytes = await readFile(png);
  await linkImage(productId, bytes, 1080, 1920);
  const cta = await storedCta(app, me, 3);
  const out = await inline(app, me, create, {
    kind: "video",
    name: "UGC",
    configuration: { type: "ugc-video", template_id: "ugc-video", product_id: productId } as never,
    cta_asset_id: cta.assetId,
    idempotency_key: key(),
  });
  const generatedBefore = imagesGenerated;
  const { result } = await reviewed(app, me, run, {
    automation_id: out.data.automation_id,
    idempotency_key: key(),
  });
  assert.equal(result.data.status, "succeeded");
  assert.equal(imagesGenerated, generatedBefore, "no image was generated");
  const request = rendered.at(-1)!;
  assert.equal(request.template, "ugc-video");
  assert.deepEqual(Buffer.from(request.images[0]!), bytes);
  const row = await app.ctx.db("automation_runs").where({ id: result.data.run_id }).first();
  assert.deepEqual(row.result.video.frame_asset_ids, []);
  assert.equal(row.result.video.hook_clip, "local");
  assert.ok(Math.abs(row.result.video.duration_seconds - 7) < 0.2, `${row.result.video.duration_seconds}`);
});

/** Stores the PNG `bytes` (`width` x `height` pixels) as the owner's image asset and links it to `productId`. */
async function linkImage(productId: string, bytes: Buffer, width: number, height: number) {
  const storageKey = app.ctx.providers.storage.newKey("png");
  await app.ctx.providers.storage.putBytes(storageKey, bytes);
  const asset = await createMediaAsset(
    app.ctx.db,
    { userId: me.user_id, workspaceId: me.workspace_id },
    { kind: "image", mimeType: "image/png", bytes: bytes.length, width, height, storageKey },
  );
  await app.ctx
    .db("product_assets")
    .insert({ product_id: productId, media_asset_id: asset.asset_id, role: "image" });
}

/** A product whose only image asset is the distinctive test photo (test/fixtures/product-photo.ts). */
async function photographedProduct(): Promise<{ id: string; photo: Buffer }> {
  const id = await product(app, me, { name: "Summit Bottle" });
  const photo = await productPhotoPng();
  await linkImage(id, photo, 1080, 1350);
  return { id, photo };
}

/** Runs a `type` automation of product `productId`; returns the run's result row and a copy of its MP4. */
async function runVideo(type: "grid-video" | "fade-video", productId: string) {
  const template = type === "grid-video" ? "2x2-grid" : "single-fade";
  const out = await inline(app, me, create, {
    kind: "video",
    name: type,
    configuration: { type, template_id: template, product_id: productId } as never,
    idempotency_key: key(),
  });
  const { result } = await reviewed(app, me, run, {
    automation_id: out.data.automation_id,
    idempotency_key: key(),
  });
  assert.equal(result.data.status, "succeeded");
  const row = await app.ctx.db("automation_runs").where({ id: result.data.run_id }).first();
  const asset = await app.ctx
    .db("media_assets")
    .where({ id: row.result.video.asset_id })
    .first("storage_key");
  const { stream } = await app.ctx.providers.storage.read(asset.storage_key);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Uint8Array));
  const file = path.join(os.tmpdir(), `smcp-run-${key()}.mp4`);
  await writeFile(file, Buffer.concat(chunks));
  return { row, file };
}

test("2x2 grid of a product with one photo: the photo whole and close up, two generated images, seen in the video", async () => {
  const { id, photo } = await photographedProduct();
  const generatedBefore = imagesGenerated;
  const { row, file } = await runVideo("grid-video", id);
  assert.equal(imagesGenerated - generatedBefore, 2, "two images generated for the other tiles");
  assert.equal(row.result.video.frame_asset_ids.length, 2);
  const request = rendered.at(-1)!;
  assert.deepEqual([Buffer.from(request.images[0]!), Buffer.from(request.images[1]!)], [photo, photo]);
  assert.deepEqual(request.zooms, [1, 1.8]);
  // At 2.5 s every tile is in, the hook not yet: the top tiles (54x96 each in the 108x192 frame) are the photo.
  const frame = await rgbFrameAt(file, 2.5);
  const whole = photoShares(frame, 2, 2, 52, 94);
  const close = photoShares(frame, 56, 2, 106, 94);
  assert.ok(whole.magenta > 0.4 && whole.green > 0.06, JSON.stringify(whole));
  assert.ok(close.green > whole.green * 2, JSON.stringify(close));
  await rm(file, { force: true });
});

test("single fade of a product with a photo uses the photo (no image generated)", async () => {
  const { id, photo } = await photographedProduct();
  const generatedBefore = imagesGenerated;
  const { file } = await runVideo("fade-video", id);
  assert.equal(imagesGenerated, generatedBefore);
  assert.deepEqual(Buffer.from(rendered.at(-1)!.images[0]!), photo);
  const shares = photoShares(await rgbFrameAt(file, 3), 10, 100, 98, 180);
  assert.ok(shares.magenta > 0.3 && shares.green > 0.1, JSON.stringify(shares));
  await rm(file, { force: true });
});
