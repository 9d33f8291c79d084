/**
 * A video's description (docs/social.md "Alt text"): a generated video's is written from what it shows (the
 * template's pictures, the product, the hook on screen); X takes it as the video's `alt_text`
 * (`POST /2/media/metadata` on the processed media id, against the provider-shaped fake, once); a network
 * without such a field (rules.ts `videoDescription`) is named "no video description" by check_post's format.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ALT_TEXT_MAX_LENGTH, generatedVideoDescription } from "../../../src/domain/media/alt-text.ts";
import { altTextFit } from "../../../src/domain/social/post-fit.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { NETWORK_RULES } from "../../../src/providers/social/rules.ts";
import { NETWORKS } from "../../../src/providers/social/types.ts";
import { xAdapter } from "../../../src/providers/social/x/adapter.ts";
import type { OperationRow } from "../../../src/domain/operations/store.ts";
import { renderApprovalPage } from "../../../src/web/approval-page.ts";
import { drive, jobFor, startMediaHost } from "../../fakes/jobs.ts";
import { FAKE_APPS } from "../../fakes/live-env.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { xFake } from "../../fakes/x.ts";

const server = await startFakeNetworks();
const x = xFake(server, { ...FAKE_APPS.x, processingPolls: 0 });
const host = await startMediaHost();
const samples = await networkSamples();
const deps = {
  publicBaseUrl: "http://127.0.0.1",
  sealer: { seal: (v: unknown) => JSON.stringify(v), open: (s: string) => JSON.parse(s) },
  now: () => new Date(),
  http: createSocialHttp(server.url),
};

test("a generated video's description says what it shows and the hook on screen, within the limit", () => {
  assert.equal(
    generatedVideoDescription({
      template: "2x2-grid",
      productName: "Glow  Serum",
      hook: "Brighter skin in 14 days",
    }),
    "Four photos of Glow Serum in a 2×2 grid, with the words “Brighter skin in 14 days” on screen.",
  );
  assert.match(
    generatedVideoDescription({ template: "single-fade", productName: "Mug", hook: "Hot coffee" }),
    /^Photos of Mug fading one into the next, with the words “Hot coffee” on screen\.$/,
  );
  assert.match(
    generatedVideoDescription({ template: "ugc-video", productName: "Mug", hook: "Wait for it" }),
    /^A person presenting Mug, then the brand's closing clip, with the words “Wait for it” on screen\.$/,
  );
  const long = generatedVideoDescription({
    template: "2x2-grid",
    productName: "Mug",
    hook: "word ".repeat(400),
  });
  assert.ok([...long].length <= ALT_TEXT_MAX_LENGTH);
  assert.ok(long.endsWith("…"));
});

test("X: the video's description is sent as its alt_text on the processed media id, once", async () => {
  const u = x.addUser();
  const clip = await host.add({ name: "clip.mp4", file: samples.mp4, kind: "video", mime: "video/mp4" });
  const job = jobFor({
    network: "x",
    networkAccountId: u.id,
    handle: u.username,
    tokens: u.accessToken,
    type: "video",
    media: [{ ...clip, durationSeconds: 2, altText: "A mug turning on a table, steam rising" }],
    caption: `video ${Math.random()}`,
  });
  const { result } = await drive(xAdapter(FAKE_APPS.x, deps).publisher, job);
  assert.equal(result.state, "published");
  const id = job.delivery.networkIds.videoMediaId as string;
  assert.equal(x.media.get(id)?.altText, "A mug turning on a table, steam rising");
  assert.equal(job.delivery.networkIds.videoDescriptionSent, true);
  assert.equal(server.hitsFor("api.x.com", /\/2\/media\/metadata/, "POST").length, 1);
  assert.deepEqual(server.takeViolations(), []);
});

test("rules.ts names X's field for a video's description; elsewhere a described video is 'no video description'", () => {
  assert.deepEqual(
    NETWORKS.filter((n) => NETWORK_RULES[n].videoDescription),
    ["x"],
  );
  assert.match(NETWORK_RULES.x.videoDescription!.source, /^https:\/\/docs\.x\.com\//);
  const described = [{ kind: "video" as const, altText: "A mug turning" }];
  assert.equal(altTextFit("x", described), null);
  for (const n of ["linkedin", "youtube", "tiktok", "facebook", "instagram", "pinterest"] as const)
    assert.equal(altTextFit(n, described), "no video description", n);
  // Nothing is lost for a video without a description.
  assert.equal(altTextFit("youtube", [{ kind: "video", altText: null }]), null);
});

test("the approval page shows a video's description under the player", () => {
  const html = renderApprovalPage({
    op: {
      id: "9b0c2f7e-0d8c-4a55-9f0e-3f2a1b4c5d6e",
      tool: "publish_post",
      state: "approval_required",
      approval_expires_at: new Date(Date.now() + 600_000),
      created_at: new Date(),
    } as OperationRow,
    toolTitle: "Publish post",
    clientName: "Agent",
    clientVerified: true,
    description: {
      summary: "Publish the video post now to Shop X (X).",
      resources: [],
      destinations: [],
      media: [
        { kind: "video", asset_id: "6b2d0f8c-3e4a-4c7b-9d0e-1f2a3b4c5d6e", description: "A mug turning" },
      ],
    },
    csrfToken: "t",
    now: new Date(),
  });
  assert.match(
    html,
    /<figure><video [^>]*><\/video><figcaption><span class="alt-text">Video description: A mug turning<\/span>/,
  );
});
