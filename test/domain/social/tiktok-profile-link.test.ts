/**
 * A TikTok link that is only the creator's profile says so (docs/social.md "Deliveries: the engine",
 * docs/analytics.md): when TikTok gives no public post id within the publisher's patience window, the
 * delivery is published with the creator's profile as `post_url` and `post_url_kind: "profile"`; the metrics
 * sync never queries `/v2/video/query/` with the publish_id, and once TikTok reports the public id
 * (`status/fetch` `publicaly_available_post_id`) the sync records it: the delivery's URL becomes the post's,
 * `post_url_kind: "post"`, and its counters are read by the real id.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { syncAnalytics } from "../../../src/domain/analytics/sync.ts";
import { upsertConnectedAccount } from "../../../src/domain/social/accounts.ts";
import { advanceDeliveries, runDeliveryStep } from "../../../src/domain/social/engine.ts";
import { TIKTOK_CAPABILITIES } from "../../../src/providers/social/tiktok/oauth.ts";
import { POST_ID_PATIENCE_SECONDS } from "../../../src/providers/social/tiktok/publisher.ts";
import { handler as postAnalyticsHandler } from "../../../src/tools/analytics/get_post_analytics.ts";
import { handler as listDeliveriesHandler } from "../../../src/tools/social/list_deliveries.ts";
import { TT_API_HOST } from "../../fakes/tiktok.ts";
import type { TestClock } from "../../helpers/app.ts";
import { inline, named } from "../../tools/carousels/fixtures.ts";
import { reviewWorld } from "../../web/review-fixtures.ts";

const { server, tt, app, videoPost } = await reviewWorld();
const clock = app.ctx.clock as TestClock;
const me = await app.user({ plan: "pro" });
const owner = { userId: me.user_id, workspaceId: me.workspace_id };
const creator = tt.addCreator({ username: "quiet.creator" });
const { account } = await upsertConnectedAccount(app.ctx.db, app.ctx.sealer, owner, {
  network: "tiktok",
  mode: "live",
  account: {
    networkAccountId: creator.openId,
    handle: creator.username,
    capabilities: TIKTOK_CAPABILITIES,
    metadata: { username: creator.username },
  },
  tokens: {
    accessToken: creator.accessToken,
    refreshToken: creator.refreshToken,
    expiresAt: new Date(Date.now() + 7 * 86_400_000),
    scopes: ["user.info.basic", "user.info.profile", "user.info.stats", "video.list", "video.publish"],
  },
  now: new Date(),
});
const listDeliveries = named("list_deliveries", listDeliveriesHandler);
const postAnalytics = named("get_post_analytics", postAnalyticsHandler);
const queries = () => server.hitsFor(TT_API_HOST, /^\/v2\/video\/query/).length;

test("no public id within the patience window: published at the profile, post_url_kind profile; the sync picks up the real id once TikTok reports it", async () => {
  // TikTok completes the post but keeps its public id back (moderation) far longer than the patience.
  tt.postIdPolls = 1_000_000;
  const postId = await videoPost(owner, "Posted, public id held back");
  const [row] = await app.ctx
    .db("deliveries")
    .insert({
      ...{ user_id: me.user_id, workspace_id: me.workspace_id },
      post_id: postId,
      social_account_id: account.social_account_id,
      status: "pending",
      options: JSON.stringify({ privacy_level: "PUBLIC_TO_EVERYONE", title: "Posted, public id held back" }),
    })
    .returning("id");
  const deliveryId: string = row.id;
  const delivery = () => app.ctx.db("deliveries").where({ id: deliveryId }).first();
  await advanceDeliveries(app.ctx, [deliveryId], { budgetSeconds: 300 });
  const waiting = await delivery();
  assert.equal(waiting.status, "processing", "complete, waiting for the public id");
  const publishId: string = waiting.network_ids.publishId;

  clock.advance(POST_ID_PATIENCE_SECONDS);
  assert.equal(await runDeliveryStep(app.ctx, deliveryId), "published");
  const atProfile = await delivery();
  assert.equal(atProfile.post_url, "https://www.tiktok.com/@quiet.creator");
  assert.equal(atProfile.post_url_kind, "profile");
  assert.equal(atProfile.provider_post_id, publishId);
  const listed = (await inline(app, me, listDeliveries, { post_id: postId })).data.items[0]!;
  assert.deepEqual([listed.post_url, listed.post_url_kind], [atProfile.post_url, "profile"]);

  // The sync asks TikTok for the public id; none yet: the publish_id is never queried as a video id.
  const before = queries();
  await syncAnalytics(app.ctx);
  assert.equal(queries(), before, "no video/query with the publish_id");
  assert.equal((await delivery()).post_url_kind, "profile");
  const none = (await inline(app, me, postAnalytics, { post_id: postId })).data.deliveries[0]!;
  assert.equal(none.views, null, "missing, not zero");

  // TikTok reports the public id: the next sync records it and reads the post by it.
  tt.publishes.get(publishId)!.postIdPollsLeft = 0;
  await syncAnalytics(app.ctx);
  const publicId = tt.publishes.get(publishId)!.postId!;
  assert.ok(publicId, "TikTok gave the public id");
  const resolved = await delivery();
  assert.equal(resolved.provider_post_id, publicId);
  assert.equal(resolved.post_url, `https://www.tiktok.com/@quiet.creator/video/${publicId}`);
  assert.equal(resolved.post_url_kind, "post");
  assert.equal(queries(), before + 1, "read by its real id");
  const read = (await inline(app, me, postAnalytics, { post_id: postId })).data.deliveries[0]!;
  assert.equal(read.views, 0, "TikTok's own counter, by the real id");
  assert.equal(read.sync_error, null);
});
