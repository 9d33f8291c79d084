/**
 * The local ffmpeg compositor (src/providers/video/local.ts) decoded with ffprobe: every template is MP4,
 * H.264 High, yuv420p, 1080x1920, 30 fps, with an AAC track, `moov` before `mdat` (faststart), and a
 * duration in the template's range; AI UGC ends with the CTA clip (last frames compared). Each template is
 * rendered once, from the product photo, and the tests that look at it share that render (a render is about
 * 3 CPU-seconds of ffmpeg: docs/testing.md).
 */
import assert from "node:assert/strict";
import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import sharp from "sharp";
import { localVideoProvider } from "../../src/providers/video/local.ts";
import { MIN_FONT_PX, renderHookOverlay } from "../../src/providers/video/overlay.ts";
import { renderHookOverlayFile } from "../../src/providers/video/overlay-process.ts";
import { VideoRenderError, type VideoTemplate } from "../../src/providers/video/types.ts";
import { productPhotoPng } from "../fixtures/product-photo.ts";
import {
  binaries,
  frameAt,
  lastFrame,
  makeClip,
  makeImage,
  meanAbsDiff,
  photoShares,
  probe,
  rgbFrameAt,
  summary,
  topLevelAtoms,
} from "../helpers/video.ts";

const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-video-test-"));
after(() => rm(dir, { recursive: true, force: true }));
const provider = localVideoProvider({ ffmpeg: binaries.ffmpeg, ffprobe: binaries.ffprobe });
await makeImage(path.join(dir, "a.png"), "testsrc");
const a = await readFile(path.join(dir, "a.png"));

const photo = await productPhotoPng();
const grey = await sharp({ create: { width: 1080, height: 1920, channels: 3, background: "#808080" } })
  .png()
  .toBuffer();

async function render(template: VideoTemplate, images: Buffer[], cta?: string, zooms?: number[]) {
  const outputFile = path.join(dir, `${template}-${Math.random().toString(36).slice(2)}.mp4`);
  const result = await provider.render({
    template,
    images,
    zooms,
    hook: "POV: you just found the serum everyone keeps asking about",
    caption: "Glow Serum",
    cta: cta ? { open: async () => createReadStream(cta) } : undefined,
    outputFile,
    seed: "seed-1",
  });
  return { outputFile, result };
}

/** `make`'s result, made on the first call and shared by every later one (an async function: docs/testing.md). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return async () => (made ??= make());
}

/** The 2x2 grid of the product photo whole and as a close-up (zoom 1.8), over two grey tiles. */
const gridRender = once(() => render("2x2-grid", [photo, photo, grey, grey], undefined, [1, 1.8]));
/** The single fade of the product photo. */
const fadeRender = once(() => render("single-fade", [photo]));
/** The CTA clip of the AI UGC render: 4 s of SMPTE bars at 640x480 and 25 fps, another size and rate. */
const ctaClip = once(async () => {
  const cta = path.join(dir, "cta.mp4");
  await makeClip(cta, { seconds: 4, size: "640x480", rate: 25, pattern: "smptebars" });
  return cta;
});
/** AI UGC: the local hook clip over the product photo, then the CTA clip. */
const ugcRender = once(async () => render("ugc-video", [photo], await ctaClip()));

async function assertDeliverable(file: string, min: number, max: number) {
  const s = summary(await probe(file));
  assert.deepEqual(s.video, {
    codec: "h264",
    profile: "High",
    pix_fmt: "yuv420p",
    width: 1080,
    height: 1920,
    fps: "30/1",
  });
  assert.equal(s.audio, "aac");
  assert.ok(s.duration >= min && s.duration <= max, `duration ${s.duration} not in ${min}..${max}`);
  const atoms = await topLevelAtoms(file);
  assert.ok(atoms.includes("moov") && atoms.includes("mdat"), atoms.join(","));
  assert.ok(atoms.indexOf("moov") < atoms.indexOf("mdat"), `faststart: ${atoms.join(",")}`);
  return s;
}

test("2x2 grid: four images into a grid with the hook, 6 to 10 s, deliverable MP4", async () => {
  const { outputFile, result } = await gridRender();
  const s = await assertDeliverable(outputFile, 6, 10);
  assert.equal(result.duration_seconds, s.duration);
  assert.equal(result.bytes, (await stat(outputFile)).size);
  assert.deepEqual([result.width, result.height, result.hook_clip], [1080, 1920, null]);
  // The tiles animate: the opening frame (tiles still entering) differs from the settled grid.
  assert.ok(meanAbsDiff(await frameAt(outputFile, 0.1), await frameAt(outputFile, 4)) > 20);
});

test("single fade: one image with zoom and fades, 5 to 8 s, deliverable MP4", async () => {
  const { outputFile } = await fadeRender();
  await assertDeliverable(outputFile, 5, 8);
  // Faded in from black: the first frame is far darker than the middle one.
  const first = await frameAt(outputFile, 0);
  const middle = await frameAt(outputFile, 3);
  const mean = (f: Buffer) => f.reduce((s, v) => s + v, 0) / f.length;
  assert.ok(mean(first) + 40 < mean(middle), `${mean(first)} vs ${mean(middle)}`);
});

test("AI UGC: hook clip then the CTA (scaled and padded, with its audio) as the final segment", async () => {
  const cta = await ctaClip();
  const { outputFile, result } = await ugcRender();
  const s = await assertDeliverable(outputFile, 4 + 3, 4 + 5);
  assert.ok(Math.abs(s.duration - 8) < 0.2, `duration ${s.duration}`);
  assert.equal(result.hook_clip, "local");
  const ctaLast = await lastFrame(cta);
  assert.ok(meanAbsDiff(await lastFrame(outputFile), ctaLast) < 6, "the file ends with the CTA's last frame");
  assert.ok(meanAbsDiff(await frameAt(outputFile, 1), ctaLast) > 20, "the hook segment is not the CTA");
});

test("a missing ffmpeg or a missing CTA is a VideoRenderError, and no output is left", async () => {
  const none = localVideoProvider({ ffmpeg: undefined, ffprobe: binaries.ffprobe });
  const out = path.join(dir, "none.mp4");
  await assert.rejects(
    none.render({ template: "single-fade", images: [a], hook: "x", outputFile: out, seed: "s" }),
    (err: unknown) =>
      err instanceof VideoRenderError &&
      err.message ===
        "videos cannot be rendered: ffmpeg is not installed on this server (install a maintained ffmpeg (Debian/Ubuntu: apt-get install ffmpeg) or set FFMPEG_PATH and FFPROBE_PATH)",
  );
  await assert.rejects(
    provider.render({ template: "ugc-video", images: [a], hook: "x", outputFile: out, seed: "s" }),
    /needs a CTA video/,
  );
  const broken = localVideoProvider({ ffmpeg: "/bin/false", ffprobe: binaries.ffprobe });
  await assert.rejects(
    broken.render({ template: "single-fade", images: [a], hook: "x", outputFile: out, seed: "s" }),
    /video render failed/,
  );
  await assert.rejects(stat(out), { code: "ENOENT" });
});

test("overlay: the text box only, placed in the frame; long hooks shrink to fit", async () => {
  const short = await renderHookOverlay({
    text: "Wait for it",
    width: 1080,
    height: 1920,
    position: "center",
  });
  const long = await renderHookOverlay({
    text: "This is the one serum my whole group chat keeps asking about and honestly I get it now, it really works",
    width: 1080,
    height: 1920,
    position: "center",
  });
  assert.ok(long.fontSize < short.fontSize && long.fontSize >= MIN_FONT_PX, `${long.fontSize}`);
  const { data, info } = await sharp(long.png).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([info.width, info.height, info.channels], [long.width, long.height, 4]);
  // The text 86% of the width plus the box's padding, centred; centred down the frame; even numbers.
  assert.equal(long.width, 928 + 2 * 44);
  assert.equal(long.x, 32);
  assert.ok(long.height > 200 && long.height <= 1920 * 0.3 + 2, `${long.height}`);
  assert.ok(Math.abs(long.y - (1920 - long.height) / 2) <= 1, `${long.y}`);
  for (const n of [long.x, long.y, long.width, long.height]) assert.equal(n % 2, 0, `${n} is even`);
  assert.equal(data[3], 0, "the box's rounded top-left corner is transparent");
  const centre = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 4;
  assert.ok(data[centre + 3]! > 100, "the text box is opaque enough to read");
  // At the top: 12% of the height down from the top edge.
  const top = await renderHookOverlay({ text: "Wait for it", width: 1080, height: 1920, position: "top" });
  assert.deepEqual([top.x, top.y], [32, 230]);
  const bottom = await renderHookOverlay({
    text: "Wait for it",
    width: 1080,
    height: 1920,
    position: "bottom",
  });
  assert.equal(bottom.y + bottom.height, 1920 - 230);
});

test("the renderer draws the overlay in a process of its own: the same PNG and box; a failure names no text", async () => {
  const req = {
    text: "Wait for it",
    caption: "Summit Bottle",
    width: 1080,
    height: 1920,
    position: "top" as const,
  };
  const file = path.join(dir, "hook-child.png");
  const placed = await renderHookOverlayFile(req, file);
  const inline = await renderHookOverlay(req);
  assert.deepEqual(placed, {
    x: inline.x,
    y: inline.y,
    width: inline.width,
    height: inline.height,
    fontSize: inline.fontSize,
  });
  assert.ok((await readFile(file)).equals(inline.png), "the child wrote the same PNG");
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  for (const [text, out] of [
    ["   ", path.join(dir, "none.png")],
    ["My secret launch hook", path.join(dir, "no-such-folder", "hook.png")],
  ] as const)
    await assert.rejects(renderHookOverlayFile({ ...req, text }, out), (err) => {
      assert.ok(err instanceof VideoRenderError);
      assert.equal(err.reason, "the hook text could not be drawn");
      assert.ok(!err.message.includes("secret"));
      return true;
    });
});

test("2x2 grid of a product photo whole and as a close-up: both tiles show it, the close-up larger", async () => {
  const { outputFile } = await gridRender();
  // At 2.5 s every tile is in and the hook has not faded in yet; the frame is 108x192, tiles 54x96.
  const frame = await rgbFrameAt(outputFile, 2.5);
  const whole = photoShares(frame, 2, 2, 52, 94);
  const close = photoShares(frame, 56, 2, 106, 94);
  assert.ok(whole.magenta > 0.4 && whole.green > 0.06, `whole photo tile: ${JSON.stringify(whole)}`);
  assert.ok(close.green > whole.green * 2, `close-up: ${JSON.stringify(close)} vs ${JSON.stringify(whole)}`);
  const generated = photoShares(frame, 2, 98, 52, 190);
  assert.ok(generated.magenta + generated.green < 0.05, "the other tiles are the other images");
});

test("single fade of the product photo: the photo fills the frame under the hook", async () => {
  const { outputFile } = await fadeRender();
  const shares = photoShares(await rgbFrameAt(outputFile, 3), 10, 100, 98, 180);
  assert.ok(shares.magenta > 0.3 && shares.green > 0.1, JSON.stringify(shares));
});

test("AI UGC local hook clip moves over the product photo (zoom and pan), not a still", async () => {
  const { outputFile } = await ugcRender();
  for (const t of [0.5, 2, 3.5]) {
    const shares = photoShares(await rgbFrameAt(outputFile, t), 10, 100, 98, 180);
    assert.ok(shares.magenta > 0.2 && shares.green > 0.1, `${t} s: ${JSON.stringify(shares)}`);
  }
  // The green square grows (zoom) and its centre moves sideways (pan) between 0.5 s and 3.5 s.
  const early = greenSpot(await rgbFrameAt(outputFile, 0.5));
  const late = greenSpot(await rgbFrameAt(outputFile, 3.5));
  assert.ok(late.n > early.n * 1.2, `zoom: ${early.n} -> ${late.n} green pixels`);
  assert.ok(Math.abs(late.x - early.x) > 2, `pan: centre x ${early.x} -> ${late.x}`);
  assert.ok(meanAbsDiff(await frameAt(outputFile, 1), await frameAt(outputFile, 3)) > 0.5, "frames differ");
});

/** The green square in a 108x192 RGB frame: its pixel count and mean x. */
function greenSpot(frame: Buffer) {
  let n = 0;
  let sx = 0;
  for (let i = 0; i < frame.length; i += 3)
    if (frame[i + 1]! > 150 && frame[i]! < 110 && frame[i + 2]! < 110) {
      n += 1;
      sx += (i / 3) % 108;
    }
  return { n, x: sx / Math.max(1, n) };
}
