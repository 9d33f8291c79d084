/**
 * The openai-compatible image provider against the strict Images API fake (test/fakes/openai-images.ts):
 * each model family gets a size it accepts (nearest aspect; gpt-image-2 the nearest valid size of the
 * slide's aspect) and `response_format` only for dall-e, and the answer is cover-fitted to the slide; what
 * we sent before (1080x1350 and response_format to a gpt-image model) is refused with the API's own error;
 * a 429 is waited out with its Retry-After (bounded), a 400 fails at once naming its param, a retired model
 * names AI_IMAGE_MODEL; nothing of the key, the prompt or the provider's message reaches a reason.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import sharp from "sharp";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { aiImageProvider } from "../../src/providers/ai-image/index.ts";
import { openAiCompatibleImage } from "../../src/providers/ai-image/openai-compatible.ts";
import { ImageGenerationError, FORMAT_SIZES } from "../../src/providers/ai-image/types.ts";
import { rateLimited } from "../fakes/openai-api.ts";
import { startFakeImageServer } from "../fakes/openai-images.ts";

const fake = await startFakeImageServer({ apiKey: "sk-test-key" });
after(() => fake.close());

const waits: number[] = [];
const provider = (model = "gpt-image-1.5", extra: { timeoutSeconds?: number; size?: string } = {}) =>
  openAiCompatibleImage({
    baseUrl: fake.baseUrl,
    apiKey: "sk-test-key",
    model,
    timeoutSeconds: extra.timeoutSeconds ?? 5,
    ...(extra.size ? { size: extra.size } : {}),
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
const req = { prompt: "a serum bottle on marble", seed: "p:1:r", width: 1080, height: 1350 };

const failure = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail("expected a failure"),
    (e: unknown) => {
      assert.ok(e instanceof ImageGenerationError, String(e));
      assert.doesNotMatch(e.message, /sk-|marble|secret|does not exist/);
      return e;
    },
  );

test("every model family gets a size it accepts for every slide format; the image is cover-fitted to the slide", async () => {
  const want: Record<string, Record<string, string>> = {
    "gpt-image-1.5": { square: "1024x1024", portrait: "1024x1536", story: "1024x1536" },
    "gpt-image-1-mini": { square: "1024x1024", portrait: "1024x1536", story: "1024x1536" },
    "gpt-image-2": { square: "1088x1088", portrait: "1088x1360", story: "1088x1936" },
    "dall-e-3": { square: "1024x1024", portrait: "1024x1024", story: "1024x1792" },
  };
  for (const [model, sizes] of Object.entries(want)) {
    for (const [format, size] of Object.entries(sizes)) {
      const slide = FORMAT_SIZES[format]!;
      const before = fake.requests.length;
      const out = await provider(model).generate({ ...req, ...slide });
      const sent = fake.requests[before]!;
      assert.equal(sent.path, "/v1/images/generations");
      assert.equal(sent.auth, "Bearer sk-test-key");
      assert.deepEqual(sent.body, {
        model,
        prompt: req.prompt,
        n: 1,
        size,
        ...(model === "dall-e-3" ? { response_format: "b64_json" } : {}),
      });
      const meta = await sharp(out.bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", slide.width, slide.height]);
    }
  }
});

test("the fake refuses what the Images API refuses, with its error body", async () => {
  const post = (body: object) =>
    fetch(`${fake.baseUrl}/images/generations`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test-key" },
      body: JSON.stringify({ prompt: "p", ...body }),
    }).then(async (r) => [r.status, (await r.json()).error] as const);
  // What the adapter once sent: a slide size and response_format to a gpt-image model.
  assert.deepEqual(await post({ model: "gpt-image-1.5", size: "1080x1350", response_format: "b64_json" }), [
    400,
    {
      message: "Unknown parameter: 'response_format'.",
      type: "invalid_request_error",
      param: "response_format",
      code: "unknown_parameter",
    },
  ]);
  assert.deepEqual(await post({ model: "gpt-image-1.5", size: "1080x1350" }), [
    400,
    {
      message:
        "Invalid value: '1080x1350'. Supported values are: '1024x1024', '1536x1024', '1024x1536', and 'auto'.",
      type: "invalid_request_error",
      param: "size",
      code: "invalid_value",
    },
  ]);
  const [status, error] = await post({ model: "gpt-image-2", size: "1080x1350" });
  assert.deepEqual(
    [status, error.param, error.code],
    [400, "size", "invalid_value"],
    "1080 is not a multiple of 16",
  );
  assert.equal((await post({ model: "gpt-image-2", size: "1088x1360" }))[0], 200);
  assert.equal((await post({ model: "gpt-image-2", size: "3840x1024" }))[1].param, "size", "ratio over 3:1");
  assert.equal((await post({ model: "gpt-image-2", size: "512x512" }))[1].param, "size", "too few pixels");
  assert.deepEqual((await post({ model: "gpt-image-1", size: "1024x1024" }))[1].code, "model_not_found");
  assert.deepEqual((await post({ size: "1024x1024" }))[1].param, "model");
  const models = await fetch(`${fake.baseUrl}/models`, { headers: { authorization: "Bearer sk-test-key" } });
  assert.deepEqual(
    (await models.json()).data.map((m: { id: string }) => m.id),
    ["gpt-image-1.5", "gpt-image-1-mini", "gpt-image-2", "dall-e-3"],
  );
});

test("a 429 is waited out with its Retry-After, at most 4 attempts, then a clear failure", async () => {
  waits.length = 0;
  fake.faults.push(rateLimited(3), rateLimited(1));
  const before = fake.requests.length;
  const out = await provider().generate(req);
  assert.equal(out.width, 1080);
  assert.deepEqual(waits, [3000, 1000]);
  assert.equal(fake.requests.length - before, 3);

  waits.length = 0;
  fake.faults.push(rateLimited(1), rateLimited(1), rateLimited(1), rateLimited(1));
  const err = await failure(provider().generate(req));
  assert.match(err.reason, /rate limiting \(HTTP 429\) after 4 attempts; retry later/);
  assert.equal(waits.length, 3);

  waits.length = 0;
  fake.faults.push(rateLimited(600));
  const long = await failure(provider().generate(req));
  assert.match(long.reason, /asks to wait 600 seconds/);
  assert.equal(waits.length, 0, "a wait beyond the bound is not attempted");
});

test("a 400 fails at once naming the provider's param; a retired model names AI_IMAGE_MODEL", async () => {
  const before = fake.requests.length;
  const err = await failure(provider("gpt-image-1.5", { size: "1080x1350" }).generate(req));
  assert.equal(err.reason, "the image provider refused the image (HTTP 400, param size, code invalid_value)");
  assert.equal(fake.requests.length - before, 1, "not retried");
  const retired = await failure(provider("gpt-image-1").generate(req));
  assert.equal(
    retired.reason,
    "the image provider does not serve the configured model (HTTP 404, code model_not_found); check AI_IMAGE_MODEL",
  );
  const wrongKey = await failure(
    openAiCompatibleImage({
      baseUrl: fake.baseUrl,
      apiKey: "sk-wrong",
      model: "gpt-image-2",
      timeoutSeconds: 5,
    }).generate(req),
  );
  assert.match(wrongKey.reason, /HTTP 401, code invalid_api_key/);
});

test("AI_IMAGE_SIZE overrides the family's size (a gateway's own sizes, or auto)", async () => {
  const before = fake.requests.length;
  const out = await provider("gpt-image-1.5", { size: "auto" }).generate(req);
  assert.equal(fake.requests[before]!.body.size, "auto");
  const meta = await sharp(out.bytes).metadata();
  assert.deepEqual([meta.width, meta.height], [1080, 1350]);
});

const failures: Array<[string, Parameters<typeof fake.script.push>[0], RegExp]> = [
  ["HTTP 500", { status: 500 }, /HTTP 500/],
  ["invalid JSON", "not-json", /invalid JSON/],
  ["no data", "no-data", /b64_json/],
  ["undecodable image", "not-an-image", /decoded/],
];
for (const [name, reply, reason] of failures) {
  test(`a ${name} answer is an ImageGenerationError with a safe reason (no key, no body)`, async () => {
    fake.script.push(reply);
    const err = await failure(provider().generate(req));
    assert.match(err.reason, reason);
  });
}

test("a slow provider times out per image; an unreachable one is an ImageGenerationError", async () => {
  fake.script.push({ delayMs: 2500 });
  const slow = await failure(provider("gpt-image-1.5", { timeoutSeconds: 1 }).generate(req));
  assert.match(slow.reason, /within 1 seconds/);
  const p = openAiCompatibleImage({
    baseUrl: "http://127.0.0.1:9/v1",
    model: "gpt-image-2",
    timeoutSeconds: 2,
  });
  const gone = await failure(p.generate(req));
  assert.match(gone.reason, /could not be reached/);
});

test("config: openai-compatible needs AI_IMAGE_MODEL (no default); AI_IMAGE_SIZE is auto or WxH", async () => {
  assert.equal(aiImageProvider(loadConfig({})).name, "local");
  assert.equal(loadConfig({}).image.model, undefined);
  assert.throws(
    () => loadConfig({ AI_IMAGE_PROVIDER: "openai-compatible", AI_IMAGE_BASE_URL: fake.baseUrl }),
    (e: unknown) => e instanceof ConfigError && e.variable === "AI_IMAGE_MODEL",
  );
  assert.throws(
    () => loadConfig({ AI_IMAGE_SIZE: "big" }),
    (e: unknown) => e instanceof ConfigError && e.variable === "AI_IMAGE_SIZE",
  );
  const config = loadConfig({
    AI_IMAGE_PROVIDER: "openai-compatible",
    AI_IMAGE_BASE_URL: fake.baseUrl,
    AI_IMAGE_API_KEY: "sk-test-key",
    AI_IMAGE_MODEL: "gpt-image-2",
    AI_IMAGE_TIMEOUT_SECONDS: "7",
    AI_IMAGE_SIZE: "1024x1536",
  });
  assert.deepEqual(
    [config.image.provider, config.image.model, config.image.timeoutSeconds, config.image.size],
    ["openai-compatible", "gpt-image-2", 7, "1024x1536"],
  );
  const before = fake.requests.length;
  const p = aiImageProvider(config);
  assert.equal(p.name, "openai-compatible");
  await p.generate({ ...req, width: 64, height: 64 });
  assert.equal(fake.requests[before]!.auth, "Bearer sk-test-key");
  assert.deepEqual(
    [fake.requests[before]!.body.model, fake.requests[before]!.body.size],
    ["gpt-image-2", "1024x1536"],
  );
});
