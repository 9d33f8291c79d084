/**
 * The openai-compatible video provider against a fake Videos API (test/fakes/openai-videos.ts): the AI UGC
 * hook clip is created, polled until completed and downloaded, then composed before the CTA; failures are
 * VideoRenderErrors naming the status, param and code only (never provider text or the key); a 429 is
 * waited out; a retired model is refused; config requires a base URL and a model.
 */
import assert from "node:assert/strict";
import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { videoProvider } from "../../src/providers/video/index.ts";
import { clipSeconds, openAiCompatibleVideoProvider } from "../../src/providers/video/openai-compatible.ts";
import { VideoRenderError } from "../../src/providers/video/types.ts";
import { rateLimited } from "../fakes/openai-api.ts";
import { startFakeVideos } from "../fakes/openai-videos.ts";
import { binaries, lastFrame, makeClip, makeImage, meanAbsDiff, probe, summary } from "../helpers/video.ts";

const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-video-oai-"));
after(() => rm(dir, { recursive: true, force: true }));
await makeClip(path.join(dir, "clip.mp4"), { seconds: 4, size: "720x1280", rate: 24, audio: true });
await makeClip(path.join(dir, "cta.mp4"), { seconds: 3, size: "1080x1920", rate: 30, pattern: "smptebars" });
await makeImage(path.join(dir, "product.png"));
const fake = await startFakeVideos(await readFile(path.join(dir, "clip.mp4")));
after(() => fake.close());
const image = await readFile(path.join(dir, "product.png"));

const provider = (apiKey = "test-video-key") =>
  openAiCompatibleVideoProvider(
    { ffmpeg: binaries.ffmpeg, ffprobe: binaries.ffprobe },
    { baseUrl: fake.baseUrl, apiKey, model: "gateway-video-1", timeoutSeconds: 30, pollIntervalMs: 20 },
  );

const request = (outputFile: string) => ({
  template: "ugc-video" as const,
  images: [image],
  hook: "Wait for the glow",
  cta: { open: async () => createReadStream(path.join(dir, "cta.mp4")) },
  outputFile,
  seed: "s",
});

test("AI UGC hook clip: POST /videos, poll until completed, download /content, then the CTA last", async () => {
  fake.requests.length = 0;
  fake.scenario = { outcome: "completed", pollsBeforeDone: 2 };
  const out = path.join(dir, "ugc.mp4");
  const result = await provider().render(request(out));
  assert.equal(result.provider, "openai-compatible");
  assert.equal(result.hook_clip, "generated");
  assert.deepEqual(
    fake.requests.map((r) => `${r.method} ${r.path}`),
    [
      "POST /v1/videos",
      "GET /v1/videos/video_1",
      "GET /v1/videos/video_1",
      "GET /v1/videos/video_1",
      "GET /v1/videos/video_1/content",
    ],
  );
  assert.ok(fake.requests.every((r) => r.auth === "Bearer test-video-key"));
  const body = fake.requests[0]!.body;
  assert.equal(body.model, "gateway-video-1");
  assert.equal(body.seconds, "4");
  assert.equal(body.size, "720x1280");
  assert.match(body.prompt, /Wait for the glow/);
  const s = summary(await probe(out));
  assert.deepEqual(
    [s.video?.profile, s.video?.width, s.video?.height, s.video?.fps, s.audio],
    ["High", 1080, 1920, "30/1", "aac"],
  );
  assert.ok(Math.abs(s.duration - 7) < 0.2, `4 s hook + 3 s CTA, got ${s.duration}`);
  assert.ok(meanAbsDiff(await lastFrame(out), await lastFrame(path.join(dir, "cta.mp4"))) < 6);
});

test("a failed generation, a refused request or a wrong key is a VideoRenderError without provider text", async () => {
  for (const [outcome, key, pattern] of [
    ["failed", "test-video-key", /failed to generate/],
    ["refuse", "test-video-key", /refused the request \(HTTP 400, param prompt, code moderation_blocked\)/],
    ["completed", "wrong-key", /refused the request \(HTTP 401, code invalid_api_key\)/],
  ] as const) {
    fake.scenario = { outcome, pollsBeforeDone: 0 };
    const err = await provider(key)
      .render(request(path.join(dir, `bad-${outcome}.mp4`)))
      .then(
        () => assert.fail("expected a failure"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof VideoRenderError, String(err));
    assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /secret|sk-|moderation system/i);
  }
});

test("a 429 on create is waited out with its Retry-After, then the clip is made; a retired model is refused", async () => {
  fake.requests.length = 0;
  fake.scenario = { outcome: "completed", pollsBeforeDone: 0 };
  fake.faults.push(rateLimited(1));
  const started = Date.now();
  const result = await provider().render(request(path.join(dir, "after-429.mp4")));
  assert.equal(result.hook_clip, "generated");
  assert.ok(Date.now() - started >= 1000, "waited the Retry-After second");
  assert.equal(fake.requests.filter((r) => r.method === "POST").length, 2);
  const retired = openAiCompatibleVideoProvider(
    { ffmpeg: binaries.ffmpeg, ffprobe: binaries.ffprobe },
    {
      baseUrl: fake.baseUrl,
      apiKey: "test-video-key",
      model: "sora-2",
      timeoutSeconds: 30,
      pollIntervalMs: 20,
    },
  );
  await assert.rejects(retired.render(request(path.join(dir, "retired.mp4"))), (e: unknown) => {
    assert.ok(e instanceof VideoRenderError);
    assert.match(
      e.reason,
      /does not serve the configured model \(HTTP 404, code model_not_found\); check AI_VIDEO_MODEL/,
    );
    return true;
  });
});

test("the strict fake refuses what the Videos API refuses: other durations, sizes, unknown parameters", async () => {
  const post = (body: object) =>
    fetch(`${fake.baseUrl}/videos`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test-video-key" },
      body: JSON.stringify({ model: "gateway-video-1", prompt: "p", ...body }),
    }).then(async (r) => [r.status, (await r.json()).error] as const);
  assert.deepEqual(await post({ seconds: "5" }), [
    400,
    {
      message: "Invalid value: '5'. Supported values are: '4', '8', and '12'.",
      type: "invalid_request_error",
      param: "seconds",
      code: "invalid_value",
    },
  ]);
  assert.equal((await post({ size: "1080x1920" }))[1].param, "size");
  assert.equal((await post({ fps: 30 }))[1].code, "unknown_parameter");
  assert.equal((await post({ model: undefined }))[1].param, "model");
  // The duration, the size and the unknown parameter broke OpenAI's description (test/contracts/openai.json):
  // refused by the contract check, on purpose here.
  assert.deepEqual(
    fake.takeViolations().map((v) => [v.kind, v.param]),
    [
      ["invalid_value", "seconds"],
      ["invalid_value", "size"],
      ["unknown_parameter", "fps"],
    ],
  );
  assert.equal(clipSeconds(4), "4");
  assert.equal(clipSeconds(6), "8");
});

test("the Videos fake serves a video's content only once it is completed, and answers the whole video object", async () => {
  fake.scenario = { outcome: "completed", pollsBeforeDone: 1 };
  const auth = { authorization: "Bearer test-video-key" };
  const created = (await fetch(`${fake.baseUrl}/videos`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth },
    body: JSON.stringify({ model: "gateway-video-1", prompt: "a mug", seconds: "4", size: "720x1280" }),
  }).then((r) => r.json())) as { id: string; status: string; created_at: number; error: unknown };
  assert.deepEqual([created.status, typeof created.created_at, created.error], ["queued", "number", null]);
  const early = await fetch(`${fake.baseUrl}/videos/${created.id}/content`, { headers: auth });
  assert.equal(early.status, 404);
  await early.body?.cancel();
  const polled = (await fetch(`${fake.baseUrl}/videos/${created.id}`, { headers: auth }).then((r) =>
    r.json(),
  )) as {
    status: string;
  };
  assert.equal(polled.status, "in_progress");
  const done = (await fetch(`${fake.baseUrl}/videos/${created.id}`, { headers: auth }).then((r) =>
    r.json(),
  )) as {
    status: string;
    completed_at: number | null;
  };
  assert.equal(done.status, "completed");
  assert.equal(typeof done.completed_at, "number");
  const content = await fetch(`${fake.baseUrl}/videos/${created.id}/content`, { headers: auth });
  assert.equal(content.status, 200);
  assert.ok((await content.arrayBuffer()).byteLength > 0);
});

test("config: AI_VIDEO_PROVIDER=openai-compatible needs AI_VIDEO_BASE_URL and AI_VIDEO_MODEL (no default); local is the default", () => {
  for (const [env, variable] of [
    [{ AI_VIDEO_PROVIDER: "openai-compatible", AI_VIDEO_MODEL: "m" }, "AI_VIDEO_BASE_URL"],
    [
      { AI_VIDEO_PROVIDER: "openai-compatible", AI_VIDEO_BASE_URL: "https://videos.example.com/v1" },
      "AI_VIDEO_MODEL",
    ],
  ] as const)
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && e.variable === variable,
    );
  assert.equal(videoProvider(loadConfig({})).name, "local");
  assert.equal(loadConfig({}).video.model, undefined, "no built-in model");
  const configured = loadConfig({
    AI_VIDEO_PROVIDER: "openai-compatible",
    AI_VIDEO_BASE_URL: "https://videos.example.com/v1/",
    AI_VIDEO_API_KEY: "k",
    AI_VIDEO_MODEL: "gateway-video-1",
    AI_VIDEO_TIMEOUT_SECONDS: "120",
  });
  assert.deepEqual(
    [configured.video.baseUrl, configured.video.model, configured.video.timeoutSeconds],
    ["https://videos.example.com/v1", "gateway-video-1", 120],
  );
  assert.equal(videoProvider(configured).name, "openai-compatible");
});
