/** The openai-compatible image provider against a local fake of POST /images/generations. */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import sharp from "sharp";
import { loadConfig } from "../../src/config.ts";
import { aiImageProvider } from "../../src/providers/ai-image/index.ts";
import { openAiCompatibleImage } from "../../src/providers/ai-image/openai-compatible.ts";
import { ImageGenerationError } from "../../src/providers/ai-image/types.ts";
import { startFakeImageServer } from "../fakes/openai-images.ts";

const fake = await startFakeImageServer();
after(() => fake.close());

const provider = (timeoutSeconds = 5) =>
  openAiCompatibleImage({ baseUrl: fake.baseUrl, apiKey: "sk-test-key", model: "img-model", timeoutSeconds });
const req = { prompt: "a serum bottle on marble", seed: "p:1:r", width: 1080, height: 1350 };

test("sends model, prompt, size, n=1 and b64_json with the bearer key; returns the image at the requested size", async () => {
  fake.script = ["ok"];
  const before = fake.requests.length;
  const out = await provider().generate(req);
  const sent = fake.requests[before]!;
  assert.equal(sent.path, "/v1/images/generations");
  assert.equal(sent.auth, "Bearer sk-test-key");
  assert.deepEqual(sent.body, {
    model: "img-model",
    prompt: "a serum bottle on marble",
    size: "1080x1350",
    n: 1,
    response_format: "b64_json",
  });
  const meta = await sharp(out.bytes).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height, out.mimeType], ["jpeg", 1080, 1350, "image/jpeg"]);
});

const failures: Array<[string, Parameters<typeof fake.script.push>[0], RegExp]> = [
  ["HTTP 500", { status: 500 }, /HTTP 500/],
  ["HTTP 429", { status: 429 }, /HTTP 429/],
  ["invalid JSON", "not-json", /invalid JSON/],
  ["no data", "no-data", /b64_json/],
  ["undecodable image", "not-an-image", /decoded/],
];
for (const [name, reply, reason] of failures) {
  test(`a ${name} answer is an ImageGenerationError with a safe reason (no key, no body)`, async () => {
    fake.script = [reply];
    const err = await provider()
      .generate(req)
      .then(
        () => assert.fail("expected a failure"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof ImageGenerationError);
    assert.match(err.reason, reason);
    assert.ok(!/sk-/.test(err.message) && !/marble/.test(err.message));
  });
}

test("a slow provider times out per image with an ImageGenerationError", async () => {
  fake.script = [{ delayMs: 2500 }];
  const err = await provider(1)
    .generate(req)
    .then(
      () => assert.fail("expected a timeout"),
      (e: unknown) => e,
    );
  assert.ok(err instanceof ImageGenerationError);
  assert.match(err.reason, /within 1 seconds/);
});

test("an unreachable base URL is an ImageGenerationError", async () => {
  const p = openAiCompatibleImage({ baseUrl: "http://127.0.0.1:9/v1", model: "m", timeoutSeconds: 2 });
  const err = await p.generate(req).then(
    () => assert.fail("expected a failure"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ImageGenerationError);
  assert.match(err.reason, /could not be reached/);
});

test("config selects the provider: local by default, openai-compatible with AI_IMAGE_* settings", async () => {
  assert.equal(aiImageProvider(loadConfig({})).name, "local");
  const config = loadConfig({
    AI_IMAGE_PROVIDER: "openai-compatible",
    AI_IMAGE_BASE_URL: fake.baseUrl,
    AI_IMAGE_API_KEY: "sk-from-env",
    AI_IMAGE_MODEL: "env-model",
    AI_IMAGE_TIMEOUT_SECONDS: "7",
  });
  assert.deepEqual(config.image, {
    provider: "openai-compatible",
    baseUrl: fake.baseUrl,
    apiKey: "sk-from-env",
    model: "env-model",
    timeoutSeconds: 7,
  });
  fake.script = ["ok"];
  const before = fake.requests.length;
  const p = aiImageProvider(config);
  assert.equal(p.name, "openai-compatible");
  await p.generate({ ...req, width: 64, height: 64 });
  assert.equal(fake.requests[before]!.auth, "Bearer sk-from-env");
  assert.equal(fake.requests[before]!.body.model, "env-model");
});
