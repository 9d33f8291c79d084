/**
 * Video images in parallel (docs/providers.md "Media stack: slides and images"): a 2x2 grid automation run
 * asks the openai-compatible image adapter for its four images at once (AI_IMAGE_CONCURRENCY 4, the default)
 * against the strict Images API fake, stores each as a frame asset as it arrives and charges the template
 * price once; a refused image fails the run and refunds that charge once, as before. The fake's gate holds
 * every request until all four are in flight: no timing is asserted.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runAutomation } from "../../src/domain/automations/run.ts";
import { openAiCompatibleImage } from "../../src/providers/ai-image/openai-compatible.ts";
import { handler as createHandler } from "../../src/tools/automations/create_automation.ts";
import { invalidValue } from "../fakes/openai-api.ts";
import { startFakeImageServer } from "../fakes/openai-images.ts";
import { waitFor } from "../operations/helpers.ts";
import { balance, inline, key, product, setup } from "../tools/carousels/fixtures.ts";

const fake = await startFakeImageServer();
after(() => fake.close());
const image = openAiCompatibleImage({ baseUrl: fake.baseUrl, model: "gpt-image-1.5", timeoutSeconds: 60 });
const { app, me } = await setup("pro", { image });
const owner = { userId: me.user_id, workspaceId: me.workspace_id };

/** A 2x2 grid automation of a product without photos: all four images are generated. */
async function gridAutomation(): Promise<string> {
  const out = await inline(app, me, createHandler, {
    kind: "video",
    name: `Grid ${key().slice(0, 6)}`,
    configuration: {
      type: "grid-video",
      template_id: "2x2-grid",
      product_id: await product(app, me),
    } as never,
    idempotency_key: key(),
  });
  return out.data.automation_id;
}

const imageRequests = () => fake.requests.filter((r) => r.path === "/v1/images/generations").length;

test("a 2x2 grid run requests its four images at once, stores each frame and charges 20 once", async () => {
  const id = await gridAutomation();
  fake.maxInFlight = 0;
  // Each request is held until four are in flight (20 s at most: then they never were).
  fake.gate = () =>
    waitFor(
      async () => fake.inFlight,
      (n) => n >= 4,
      20_000,
      10,
    ).then(
      () => {},
      () => {},
    );
  try {
    const before = await balance(app, me);
    const requests = imageRequests();
    const out = await runAutomation(app.ctx, owner, { automationId: id });
    assert.equal(out.status, "succeeded");
    assert.equal(fake.maxInFlight, 4);
    assert.equal(imageRequests() - requests, 4);
    const row = await app.ctx.db("automation_runs").where({ id: out.run_id }).first();
    assert.equal(row.result.video.frame_asset_ids.length, 4);
    assert.equal(new Set(row.result.video.frame_asset_ids).size, 4);
    assert.equal(before - (await balance(app, me)), 20);
  } finally {
    fake.gate = undefined;
  }
});

test("a refused image fails the grid run and refunds its 20 credits once", async () => {
  const id = await gridAutomation();
  const before = await balance(app, me);
  fake.faults.push(invalidValue("size", "1x1", "'auto'"));
  const out = await runAutomation(app.ctx, owner, { automationId: id });
  assert.equal(out.status, "failed");
  assert.equal(await balance(app, me), before, "charged 20, refunded 20");
  const ledger = await app.ctx.db("credit_ledger").where({ reference_id: out.run_id }).orderBy("delta");
  assert.deepEqual(
    ledger.map((l: { delta: number }) => Number(l.delta)),
    [-20, 20],
  );
  const row = await app.ctx.db("automation_runs").where({ id: out.run_id }).first();
  assert.match(row.error, /param size/);
});
