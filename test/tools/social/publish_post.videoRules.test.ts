/**
 * The video rules of the rule table (src/providers/social/rules.ts `video.spec`: frame rate, resolution,
 * codecs per network and placement, each from its page) checked before an approval is created: the test
 * media at the networks' real specs pass everywhere; a 10 fps clip is refused for Reels and TikTok, with
 * what ffprobe measured of the stored file.
 */
import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { test } from "node:test";
import { createMediaAsset } from "../../../src/domain/media/media.ts";
import { assertNetworkRules } from "../../../src/domain/social/validate.ts";
import { probeVideo } from "../../../src/providers/media-probe.ts";
import { checkNetworkRules, type RuleMedia } from "../../../src/providers/social/rule-check.ts";
import { NETWORK_RULES } from "../../../src/providers/social/rules.ts";
import { NETWORKS } from "../../../src/providers/social/types.ts";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { account, key, named, setup, toolContext, toolError } from "../carousels/fixtures.ts";

const publish = named("publish_post", publishHandler);
const samples = await networkSamples();
const { app, me } = await setup();
const insta = await account(app, me, "instagram", "Shop Insta");
const tiktok = await account(app, me, "tiktok", "Shop TikTok");

/** The stored video asset of `file` as the upload route records it (ffprobe's measures). */
async function videoAsset(file: string): Promise<{ id: string; media: RuleMedia }> {
  const info = await probeVideo(file);
  const bytes = (await stat(file)).size;
  const storageKey = app.ctx.providers.storage.newKey("mp4");
  await app.ctx.providers.storage.putFile(storageKey, file);
  const asset = await createMediaAsset(
    app.ctx.db,
    { userId: me.user_id, workspaceId: me.workspace_id },
    {
      kind: "video",
      mimeType: "video/mp4",
      bytes,
      width: info.width,
      height: info.height,
      durationSeconds: info.durationSeconds,
      frameRate: info.frameRate,
      videoCodec: info.videoCodec,
      audioCodec: info.audioCodec,
      storageKey,
    },
  );
  return {
    id: asset.asset_id,
    media: { kind: "video", mime: "video/mp4", bytes, ...info },
  };
}

async function videoPost(assetId: string): Promise<string> {
  const [row] = await app.ctx
    .db("posts")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      type: "video",
      status: "draft",
      caption: "Our mug, in motion",
      title: "The mug",
      media_asset_ids: JSON.stringify([assetId]),
    })
    .returning("id");
  return row.id;
}

const real = await videoAsset(samples.mp4);
const lowFps = await videoAsset(samples.lowFpsMp4);

test("the test video is at the networks' specs: 1080x1920, 30 fps, H.264/AAC, 3 to 15 s; every network takes it", () => {
  assert.deepEqual(
    [real.media.width, real.media.height, real.media.frameRate, real.media.videoCodec, real.media.audioCodec],
    [1080, 1920, 30, "h264", "aac"],
  );
  assert.ok(real.media.durationSeconds! >= 3 && real.media.durationSeconds! <= 15);
  for (const network of NETWORKS)
    assert.deepEqual(
      checkNetworkRules(network, { caption: "A mug", title: "Mug", media: [real.media] }),
      [],
      network,
    );
  for (const network of NETWORKS) assert.match(NETWORK_RULES[network].video.spec!.source, /^https:\/\//);
});

test("a 10 fps 180x320 clip breaks Reels' and TikTok's frame rate and TikTok's picture size; LinkedIn takes 10 fps", () => {
  const rules = (network: (typeof NETWORKS)[number]) =>
    checkNetworkRules(network, { caption: "", title: "Mug", media: [lowFps.media] }).map((v) => v.rule);
  assert.deepEqual(rules("instagram"), ["video_frame_rate"]);
  assert.deepEqual(rules("tiktok"), ["video_frame_rate", "video_resolution"]);
  assert.deepEqual(rules("facebook"), ["video_frame_rate"]);
  assert.ok(!rules("linkedin").includes("video_frame_rate"));
  const [reels] = checkNetworkRules("instagram", { caption: "", media: [lowFps.media] });
  assert.equal(reels!.message, "item 1 runs at 10 fps; Instagram Reels take 23 to 60 fps");
  const other = checkNetworkRules("x", {
    caption: "",
    media: [{ ...real.media, videoCodec: "vp9", audioCodec: "opus" }],
  });
  assert.deepEqual(
    other.map((v) => v.rule),
    ["video_codec", "audio_codec"],
  );
});

test("publish_post refuses the 10 fps video for Instagram before any approval (validation_failed, video_frame_rate)", async () => {
  const postId = await videoPost(lowFps.id);
  const err = await toolError(
    publish.describe!(
      { post_id: postId, social_account_ids: [insta], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /runs at 10 fps; Instagram Reels take 23 to 60 fps/);
  const violations = (err.details as { violations: Array<{ rule: string; network: string }> }).violations;
  assert.deepEqual(
    violations.map((v) => [v.network, v.rule]),
    [["instagram", "video_frame_rate"]],
  );
  assert.equal((await app.ctx.db("operations").where({ user_id: me.user_id })).length, 0, "no approval");
  assert.equal((await app.ctx.db("deliveries").where({ post_id: postId })).length, 0);
  // The same post at the real specs is described for approval.
  const fine = await videoPost(real.id);
  const described = await publish.describe!(
    { post_id: fine, social_account_ids: [insta], idempotency_key: key() },
    toolContext(app, me),
  );
  assert.ok(described);
});

test("TikTok's consent (the review page's check before anything is created) refuses the 10 fps video", async () => {
  const postId = await videoPost(lowFps.id);
  const post = await app.ctx.db("posts").where({ id: postId }).first();
  const destination = await app.ctx
    .db("social_accounts")
    .where({ id: tiktok })
    .first()
    .then((a) => ({
      social_account_id: a.id,
      network: a.network,
      display_name: a.display_name,
      handle: a.handle,
      status: a.status,
    }));
  const err = await toolError(assertNetworkRules(app.ctx.db, post, [destination]));
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /runs at 10 fps; TikTok videos take 23 to 60 fps/);
  assert.match(err.message, /180x320 pixels; TikTok videos take a shorter side of at least 360 px/);
});
