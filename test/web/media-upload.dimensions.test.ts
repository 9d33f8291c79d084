/**
 * Pixel and duration limits at upload (src/providers/media-limits.ts, src/web/media-upload.ts): an image
 * over 8,192 pixels a side or 40 megapixels, a video over 4,096 pixels a side or 60 seconds, and a CTA clip
 * outside 3 to 15 seconds are refused with 413 naming the limit, before anything decodes them; nothing is
 * recorded or stored. `boundedSharp` refuses to decode the same pixel bomb.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { boundedSharp, MEDIA_LIMITS } from "../../src/providers/media-limits.ts";
import { pixelBombPng, sampleVideo } from "../fixtures/media/generate.ts";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";

const app = await startTestApp({ queue: false, env: { RATE_LIMIT_UPLOADS: "1000" } });
const me = await app.user();
const s = await browserSession(app.ctx, me.user_id);
const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-limits-"));

async function upload(file: string, type: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append("csrf_token", s.csrf);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("file", new Blob([await readFile(file)], { type }), path.basename(file));
  const res = await fetch(`${app.url}/media`, {
    method: "POST",
    body: form,
    headers: { cookie: s.cookie },
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, message: cheerio.load(text)('[role="status"]').text() };
}

const assets = async () => (await app.ctx.db("media_assets").where({ user_id: me.user_id })).length;

test("a 16000 x 16000 PNG pixel bomb is refused at upload, naming the limit; sharp refuses to decode it", async () => {
  const bomb = path.join(dir, "bomb.png");
  await pixelBombPng(bomb, 16000, 16000);
  assert.ok((await readFile(bomb)).length < 1_000_000, "a small file");
  const r = await upload(bomb, "image/png");
  assert.equal(r.status, 413);
  assert.equal(r.message, "the image is 16000 x 16000 pixels; at most 8192 pixels a side are accepted");
  assert.equal(await assets(), 0, "nothing recorded");
  await assert.rejects(boundedSharp(bomb).raw().toBuffer(), /pixel limit/);
});

test("an image within 8192 pixels a side but over 40 megapixels is refused", async () => {
  const wide = path.join(dir, "wide.png");
  await pixelBombPng(wide, 8000, 5100); // 40.8 megapixels
  const r = await upload(wide, "image/png");
  assert.equal(r.status, 413);
  assert.equal(
    r.message,
    "the image is 8000 x 5100 pixels (40.8 megapixels); at most 40 megapixels are accepted",
  );
  const ok = path.join(dir, "ok.png");
  await pixelBombPng(ok, 2000, 1500);
  assert.equal((await upload(ok, "image/png")).status, 303);
  assert.equal(await assets(), 1);
});

test("videos over 4096 pixels a side or 60 seconds are refused, naming the limit", async () => {
  const wide = path.join(dir, "wide.mp4");
  await sampleVideo(wide, 4112, 16, 0.5);
  const r = await upload(wide, "video/mp4");
  assert.equal(r.status, 413);
  assert.equal(r.message, "the video is 4112 x 16 pixels; at most 4096 pixels a side are accepted");
  const long = path.join(dir, "long.mp4");
  await sampleVideo(long, 32, 32, 61, 1);
  const l = await upload(long, "video/mp4");
  assert.equal(l.status, 413);
  assert.match(l.message, /^the video is 61(\.\d+)? seconds long; at most 60 seconds are accepted$/);
  assert.equal(await assets(), 1, "nothing more recorded");
});

test("a CTA clip must be 3 to 15 seconds long (and a video)", async () => {
  assert.deepEqual(MEDIA_LIMITS.ctaSeconds, { min: 3, max: 15 });
  const short = path.join(dir, "short.mp4");
  await sampleVideo(short, 32, 32, 2);
  const r = await upload(short, "video/mp4", { purpose: "cta" });
  assert.equal(r.status, 413);
  assert.match(r.message, /^a CTA clip must be 3 to 15 seconds long; this video is 2(\.\d+)? seconds$/);
  const clip = path.join(dir, "clip.mp4");
  await sampleVideo(clip, 32, 32, 4);
  assert.equal((await upload(clip, "video/mp4", { purpose: "cta" })).status, 303);
  assert.equal((await upload(short, "video/mp4")).status, 303, "without purpose=cta a 2 s video is fine");
  const png = path.join(dir, "small.png");
  await pixelBombPng(png, 10, 10);
  const img = await upload(png, "image/png", { purpose: "cta" });
  assert.equal(img.status, 415);
  assert.equal(img.message, "a CTA clip must be an MP4 video");
});

test("an uploaded video records what ffprobe measured: frame rate and codecs, for the network rules", async () => {
  const clip = path.join(dir, "rate.mp4");
  await sampleVideo(clip, 64, 48, 1, 10);
  assert.equal((await upload(clip, "video/mp4")).status, 303);
  const row = await app.ctx
    .db("media_assets")
    .where({ user_id: me.user_id, kind: "video" })
    .orderBy("created_at", "desc")
    .first();
  assert.deepEqual(
    [Number(row.frame_rate), row.video_codec, row.audio_codec, row.width, row.height],
    [10, "h264", null, 64, 48],
  );
});
