/** run_automation (review) with native runs, prices, providers and destinations; get/list_automation_runs. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler as createHandler } from "../../../src/tools/automations/create_automation.ts";
import { handler as getRunHandler } from "../../../src/tools/automations/get_automation_run.ts";
import { handler as listRunsHandler } from "../../../src/tools/automations/list_automation_runs.ts";
import { handler as runHandler } from "../../../src/tools/automations/run_automation.ts";
import { handler as getCarouselHandler } from "../../../src/tools/carousels/get_carousel.ts";
import { probe, summary, lastFrame, meanAbsDiff } from "../../helpers/video.ts";
import { assetFile, storedCta } from "./video-fixtures.ts";
import {
  account,
  balance,
  inline,
  key,
  named,
  reviewed,
  setBalance,
  setupWithProduct,
  toolContext,
  toolError,
} from "../carousels/fixtures.ts";

const create = named("create_automation", createHandler);
const run = named("run_automation", runHandler);
const getRun = named("get_automation_run", getRunHandler);
const listRuns = named("list_automation_runs", listRunsHandler);
const getCarousel = named("get_carousel", getCarouselHandler);

const { app, me, other, peer, productId } = await setupWithProduct("pro", 8);
// A real stored CTA clip (no audio track: the UGC output must still carry AAC audio).
const { assetId: cta, file: ctaFile } = await storedCta(app, me, 4, { audio: false });

/** The run's post carries exactly one MP4 asset: returns it (record and a probe-able copy of the file). */
async function postVideo(runId: string) {
  const run = await app.ctx.db("automation_runs").where({ id: runId }).first();
  const post = await app.ctx.db("posts").where({ id: run.post_id }).first();
  assert.equal(post.type, "video");
  assert.equal(post.media_asset_ids.length, 1);
  const { file, row } = await assetFile(app, post.media_asset_ids[0]);
  assert.deepEqual(
    [row.kind, row.mime_type, row.source, row.width, row.height],
    ["video", "video/mp4", "generated", 1080, 1920],
  );
  assert.equal(row.user_id, me.user_id);
  const s = summary(await probe(file));
  assert.equal(s.video?.codec, "h264");
  assert.equal(s.audio, "aac");
  assert.ok(Math.abs(Number(row.duration_seconds) - s.duration) < 0.01);
  return { run, post, file, row, duration: s.duration };
}

async function automation(
  configuration: Record<string, unknown>,
  kind: "video" | "carousel" = "video",
  ctaId?: string,
) {
  const out = await inline(app, me, create, {
    kind,
    name: `Auto ${Math.random().toString(36).slice(2, 7)}`,
    configuration: configuration as never,
    ...(ctaId ? { cta_asset_id: ctaId } : {}),
    idempotency_key: key(),
  });
  return out.data.automation_id;
}

const grid = { type: "grid-video", template_id: "2x2-grid", product_id: productId };

test("run_automation: describe states the price; execute creates a manual run, charges 20 and renders a 2x2 video", async () => {
  const id = await automation(grid);
  const before = await balance(app, me);
  const { description, result } = await reviewed(app, me, run, { automation_id: id, idempotency_key: key() });
  assert.match(description.summary, /costs 20 credits/);
  assert.equal(result.credits_charged, 20);
  assert.equal(result.data.credits_charged, 20, "get_job_status shows data.result: it carries the charge");
  assert.equal(before - (await balance(app, me)), 20);
  assert.equal(result.data.kind, "video");
  assert.equal(result.data.status, "succeeded");
  const row = await app.ctx.db("automation_runs").where({ id: result.data.run_id }).first();
  assert.equal(row.trigger, "manual");
  assert.equal(row.result.video.template, "2x2-grid");
  assert.equal(row.result.video.frame_asset_ids.length, 4);
  const frames = await app.ctx.db("media_assets").whereIn("id", row.result.video.frame_asset_ids);
  assert.ok(frames.every((f: { source: string }) => f.source === "generated"));
  const { post, row: video, duration } = await postVideo(result.data.run_id);
  assert.equal(post.automation_run_id, result.data.run_id);
  assert.ok(duration >= 6 && duration <= 10, `${duration}`);
  assert.equal(row.result.video.asset_id, video.id);

  const read = await inline(app, me, getRun, { kind: "video", run_id: result.data.run_id });
  assert.equal(read.data.status, "succeeded");
  assert.equal(read.data.credits_charged, 20);
  assert.equal(read.data.post_id, row.post_id);
  assert.deepEqual(read.data.video, {
    asset_id: video.id,
    duration_seconds: Number(video.duration_seconds),
    bytes: Number(video.bytes),
    width: 1080,
    height: 1920,
    provider: "local", // the offline image provider made its frames
  });
  assert.equal(
    (await toolError(inline(app, me, getRun, { kind: "carousel", run_id: result.data.run_id }))).code,
    "not_found",
  );
  for (const who of [other, peer]) {
    assert.equal(
      (await toolError(inline(app, who, getRun, { kind: "video", run_id: result.data.run_id }))).code,
      "not_found",
    );
    assert.equal(
      (await toolError(run.describe!({ automation_id: id, idempotency_key: key() }, toolContext(app, who))))
        .code,
      "not_found",
    );
    assert.equal((await toolError(inline(app, who, listRuns, { automation_id: id }))).code, "not_found");
  }
  const listed = await inline(app, me, listRuns, { automation_id: id });
  assert.deepEqual(
    listed.data.items.map((r) => r.run_id),
    [result.data.run_id],
  );
});

test("native prices: single fade 5, AI UGC 10 (with its CTA video), carousel 5 per generated image", async () => {
  const fade = await automation({ type: "fade-video", template_id: "single-fade", product_id: productId });
  const ugc = await automation(
    { type: "ugc-video", template_id: "ugc-video", product_id: productId, hook: "Wait for it" },
    "video",
    cta,
  );
  const carousel = await automation(
    { product_id: productId, design_id: "bold-minimal", slide_count: 4 },
    "carousel",
  );
  const charged: number[] = [];
  for (const id of [fade, ugc, carousel]) {
    const { result } = await reviewed(app, me, run, { automation_id: id, idempotency_key: key() });
    assert.equal(result.data.status, "succeeded");
    charged.push(result.credits_charged!);
  }
  assert.deepEqual(charged, [5, 10, 20]);
  const ugcRun = await app.ctx.db("automation_runs").where({ automation_id: ugc }).first();
  assert.equal(ugcRun.result.hook, "Wait for it");
  assert.equal(ugcRun.result.video.cta_asset_id, cta);
  const fadeRun = await app.ctx.db("automation_runs").where({ automation_id: fade }).first();
  const fadeVideo = await postVideo(fadeRun.id);
  assert.ok(fadeVideo.duration >= 5 && fadeVideo.duration <= 8, `${fadeVideo.duration}`);
  assert.equal(typeof fadeRun.result.hook, "string");
  const ugcVideo = await postVideo(ugcRun.id);
  assert.ok(Math.abs(ugcVideo.duration - 8) < 0.2, `hook 4 s + CTA 4 s, got ${ugcVideo.duration}`);
  assert.ok(
    meanAbsDiff(await lastFrame(ugcVideo.file), await lastFrame(ctaFile)) < 6,
    "the UGC video ends with the CTA clip",
  );
  const carouselRun = await app.ctx.db("automation_runs").where({ automation_id: carousel }).first();
  assert.equal(carouselRun.kind, "carousel");
  const view = await inline(app, me, getCarousel, { post_id: carouselRun.post_id });
  assert.ok(view.data.slides.every((s) => s.status === "ready"));
  const read = await inline(app, me, getRun, { kind: "carousel", run_id: carouselRun.id });
  assert.equal(read.data.post_id, carouselRun.post_id);
});

test("insufficient credits refuse the run before any record is created", async () => {
  const id = await automation(grid);
  const saved = await balance(app, me);
  await setBalance(app, me, 19);
  const err = await toolError(
    run.execute({ automation_id: id, idempotency_key: key() }, toolContext(app, me)),
  );
  assert.equal(err.code, "forbidden");
  assert.equal(await balance(app, me), 19);
  assert.equal((await app.ctx.db("automation_runs").where({ automation_id: id })).length, 0);
  await setBalance(app, me, saved);
});

test("generated posts go to the destinations: published, and TikTok waits in needs_review", async () => {
  const insta = await account(app, me, "instagram");
  const tiktok = await account(app, me, "tiktok");
  const id = await automation({ ...grid, social_account_ids: [insta, tiktok] });
  const { result } = await reviewed(app, me, run, { automation_id: id, idempotency_key: key() });
  const postId = (await app.ctx.db("automation_runs").where({ id: result.data.run_id }).first()).post_id;
  const deliveries = await app.ctx.db("deliveries").where({ post_id: postId });
  const byAccount = new Map(
    deliveries.map((d: { social_account_id: string; status: string }) => [d.social_account_id, d.status]),
  );
  assert.equal(byAccount.get(insta), "published");
  assert.equal(byAccount.get(tiktok), "needs_review");
  const foreign = await account(app, other, "instagram");
  const err = await toolError(
    inline(app, me, create, {
      kind: "video",
      name: "x",
      configuration: { ...grid, social_account_ids: [foreign] } as never,
      idempotency_key: key(),
    }),
  );
  assert.equal(err.code, "not_found");
});
