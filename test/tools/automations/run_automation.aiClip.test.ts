/**
 * AI UGC runs with the openai-compatible video provider against the strict Videos API fake
 * (test/fakes/openai-videos.ts): a listed model gives a generated hook clip; a retired model (sora-2, shut
 * down 2026-09-24: 404 model_not_found) or a refused clip fails the run with the provider's safe reason and
 * refunds its credits, and no local stand-in clip is ever rendered in its place (docs/providers.md "When a
 * provider fails: no silent stand-in").
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, test } from "node:test";
import { loadConfig } from "../../../src/config/index.ts";
import { mediaBinaries } from "../../../src/providers/media-binaries.ts";
import { openAiCompatibleVideoProvider } from "../../../src/providers/video/openai-compatible.ts";
import type { VideoProvider } from "../../../src/providers/video/types.ts";
import { handler as createHandler } from "../../../src/tools/automations/create_automation.ts";
import { handler as getRunHandler } from "../../../src/tools/automations/get_automation_run.ts";
import { handler as runHandler } from "../../../src/tools/automations/run_automation.ts";
import { startFakeVideos } from "../../fakes/openai-videos.ts";
import { balance, inline, key, named, product, reviewed, setup } from "../carousels/fixtures.ts";
import { storedCta } from "./video-fixtures.ts";

const create = named("create_automation", createHandler);
const run = named("run_automation", runHandler);
const getRun = named("get_automation_run", getRunHandler);

let model = "gateway-video-1";
let provider: VideoProvider | undefined;
/** The openai-compatible provider for the current `model` (built per render, as config would). */
const video: VideoProvider = {
  name: "openai-compatible",
  render: (request, signal) => provider!.render(request, signal),
};
const { app, me } = await setup("pro", { video });
const cta = await storedCta(app, me, 3);
const fake = await startFakeVideos(await readFile(cta.file));
after(() => fake.close());
const { ffmpeg, ffprobe } = mediaBinaries(loadConfig({}).media);
const use = (m: string) => {
  model = m;
  provider = openAiCompatibleVideoProvider(
    { ffmpeg, ffprobe },
    { baseUrl: fake.baseUrl, apiKey: "test-video-key", model, timeoutSeconds: 60, pollIntervalMs: 20 },
  );
};
const productId = await product(app, me, { name: "Night Balm" });
const automation = (
  await inline(app, me, create, {
    kind: "video",
    name: "UGC",
    configuration: { type: "ugc-video", template_id: "ugc-video", product_id: productId } as never,
    cta_asset_id: cta.assetId,
    idempotency_key: key(),
  })
).data.automation_id;

test("a listed model: the hook clip is generated (4 s, 720x1280) before the CTA", async () => {
  use("gateway-video-1");
  fake.scenario = { outcome: "completed", pollsBeforeDone: 1 };
  const { result } = await reviewed(app, me, run, { automation_id: automation, idempotency_key: key() });
  assert.equal(result.data.status, "succeeded");
  const row = await app.ctx.db("automation_runs").where({ id: result.data.run_id }).first();
  assert.equal(row.result.video.hook_clip, "generated");
  const create = fake.requests.find((r) => r.method === "POST" && r.path === "/v1/videos");
  assert.deepEqual([create?.body.seconds, create?.body.size, create?.body.model], ["4", "720x1280", model]);
});

for (const [name, setupCase, reason] of [
  [
    "a retired model",
    () => use("sora-2"),
    /does not serve the configured model \(HTTP 404, code model_not_found\)/,
  ],
  [
    "a refused clip",
    () => {
      use("gateway-video-1");
      fake.scenario = { outcome: "refuse", pollsBeforeDone: 0 };
    },
    /refused the request \(HTTP 400, param prompt, code moderation_blocked\)/,
  ],
  [
    "a failed generation",
    () => {
      use("gateway-video-1");
      fake.scenario = { outcome: "failed", pollsBeforeDone: 0 };
    },
    /failed to generate the hook clip/,
  ],
] as const) {
  test(`${name} fails the run with the reason, refunds the credits and renders no local stand-in`, async () => {
    setupCase();
    const before = await balance(app, me);
    const videos = async () =>
      Number((await app.ctx.db("media_assets").where({ kind: "video" }).count({ n: "*" }).first())?.n);
    const videosBefore = await videos();
    const { result } = await reviewed(app, me, run, { automation_id: automation, idempotency_key: key() });
    assert.equal(result.data.status, "failed");
    assert.equal(await balance(app, me), before, "refunded");
    const read = await inline(app, me, getRun, { kind: "video", run_id: result.data.run_id });
    assert.equal(read.data.video, null);
    assert.match(read.data.error ?? "", reason);
    assert.match(read.data.error ?? "", /credits were refunded/);
    assert.doesNotMatch(read.data.error ?? "", /secret|moderation system|sk-/);
    assert.equal(await videos(), videosBefore, "no video stored");
  });
}
