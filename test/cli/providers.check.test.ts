/**
 * No dead defaults (docs/providers.md "AI text"): with openai-compatible providers the start asks each
 * provider's `GET {base}/models` (the strict fakes of test/fakes/): a model not listed stops `all` with one
 * line naming the variable and the listed models that would fit; a gateway without /models is a warning and
 * the start goes on; `admin providers check` prints what it found.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { after, test } from "node:test";
import { boot } from "../../src/bootstrap.ts";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { createLogger } from "../../src/log.ts";
import { checkProviderModels } from "../../src/providers/model-check.ts";
import { startFakeChat } from "../fakes/openai-chat.ts";
import { startFakeImageServer } from "../fakes/openai-images.ts";
import { startFakeVideos } from "../fakes/openai-videos.ts";
import { freshDatabase } from "../helpers/db.ts";

const chat = await startFakeChat({ apiKey: "sk-chat-secret" });
const images = await startFakeImageServer({ apiKey: "sk-image-secret" });
const noModels = await startFakeImageServer({ modelsEndpoint: false });
const videos = await startFakeVideos(Buffer.from("mp4"), { apiKey: "sk-video-secret" });
after(() => Promise.all([chat.close(), images.close(), noModels.close(), videos.close()]));
const { url } = await freshDatabase();
const dataDir = await mkdtemp(path.join(os.tmpdir(), "providers-check-"));

const env = (over: Record<string, string> = {}) => ({
  AI_TEXT_PROVIDER: "openai-compatible",
  AI_TEXT_BASE_URL: chat.baseUrl,
  AI_TEXT_API_KEY: "sk-chat-secret",
  AI_TEXT_MODEL: "gpt-4.1-mini",
  AI_IMAGE_PROVIDER: "openai-compatible",
  AI_IMAGE_BASE_URL: images.baseUrl,
  AI_IMAGE_API_KEY: "sk-image-secret",
  AI_IMAGE_MODEL: "gpt-image-2",
  AI_VIDEO_PROVIDER: "openai-compatible",
  AI_VIDEO_BASE_URL: videos.baseUrl,
  AI_VIDEO_API_KEY: "sk-video-secret",
  AI_VIDEO_MODEL: "gateway-video-1",
  ...over,
});

test("checkProviderModels: listed, not listed (with the models that would fit), no /models endpoint", async () => {
  const ok = await checkProviderModels(loadConfig(env()));
  assert.deepEqual(
    ok.map((c) => [c.variable, c.status]),
    [
      ["AI_TEXT_MODEL", "listed"],
      ["AI_IMAGE_MODEL", "listed"],
      ["AI_VIDEO_MODEL", "listed"],
    ],
  );
  const [, image, video] = await checkProviderModels(
    loadConfig(env({ AI_IMAGE_MODEL: "gpt-image-1", AI_VIDEO_MODEL: "sora-2" })),
  );
  assert.equal(image!.status, "not_listed");
  assert.equal(
    image!.message,
    `AI_IMAGE_MODEL: gpt-image-1 is not listed by ${images.baseUrl}/models; listed models that would fit: gpt-image-1.5, gpt-image-1-mini, gpt-image-2, dall-e-3`,
  );
  assert.deepEqual([video!.status, video!.fitting], ["not_listed", ["gateway-video-1"]]);
  const [, missing] = await checkProviderModels(loadConfig(env({ AI_IMAGE_BASE_URL: noModels.baseUrl })));
  assert.equal(missing!.status, "no_models_endpoint");
  assert.match(missing!.message, /is not served \(HTTP 404\); the model gpt-image-2 was not checked/);
  assert.ok(chat.requests.some((r) => r.path === "/v1/models" && r.auth === "Bearer sk-chat-secret"));
});

test("boot with checkProviders: a model not listed stops the start; a gateway without /models is a warning", async () => {
  await assert.rejects(
    boot({ env: env({ AI_TEXT_MODEL: "gpt-4o-mini-2024-07-18", DATABASE_URL: url }), checkProviders: true }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.equal(e.variable, "AI_TEXT_MODEL");
      assert.match(
        e.message,
        /^AI_TEXT_MODEL: gpt-4o-mini-2024-07-18 is not listed by .*; listed models that would fit: gpt-5-mini, gpt-4.1-mini, gpt-4o-mini$/,
      );
      return true;
    },
  );
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const booted = await boot({
    env: env({ AI_IMAGE_BASE_URL: noModels.baseUrl, DATABASE_URL: url, DATA_DIR: dataDir }),
    checkProviders: true,
    migrate: false,
    logger: createLogger("warn", sink),
  });
  await booted.close();
  const warning = lines.map((l) => JSON.parse(l)).find((l) => l.variable === "AI_IMAGE_MODEL");
  assert.equal(warning?.status, "no_models_endpoint");
  assert.doesNotMatch(lines.join(""), /sk-(chat|image|video)-secret/);
});

/** Runs the CLI (asynchronously: the fakes answer from this process) and collects its output. */
function cli(args: string[], extra: Record<string, string>) {
  const child = spawn(process.execPath, ["src/main.ts", ...args], {
    env: { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "silent", ...extra },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => {
    stdout += c;
  });
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (status) => resolve({ status, stdout, stderr })),
  );
}

test("`admin providers check` prints what it found, even for a model the start would refuse", async () => {
  const r = await cli(["admin", "providers", "check"], env({ AI_IMAGE_MODEL: "gpt-image-1" }));
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim());
  assert.equal(out.ok, false);
  assert.deepEqual(
    out.providers.map((p: { kind: string; model: string; status: string; listed: number }) => [
      p.kind,
      p.model,
      p.status,
      p.listed,
    ]),
    [
      ["text", "gpt-4.1-mini", "listed", 3],
      ["image", "gpt-image-1", "not_listed", 4],
      ["video", "gateway-video-1", "listed", 1],
    ],
  );
  assert.doesNotMatch(r.stdout, /secret/);
  const local = await cli(["admin", "providers", "check"], {});
  assert.deepEqual(JSON.parse(local.stdout.trim()), {
    providers: [
      { kind: "text", provider: "local" },
      { kind: "image", provider: "local" },
      { kind: "video", provider: "local" },
    ],
    ok: true,
  });
});

test("`all` with a model its provider does not list exits with one line naming the variable", async () => {
  const { status: code, stderr } = await cli(["all"], env({ AI_VIDEO_MODEL: "sora-2" }));
  assert.equal(code, 1);
  assert.equal(
    stderr.trim(),
    `social-mcp: configuration error: AI_VIDEO_MODEL: sora-2 is not listed by ${videos.baseUrl}/models; listed models that would fit: gateway-video-1`,
  );
});
