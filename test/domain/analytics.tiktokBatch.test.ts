/**
 * TikTok's batched post reads (docs/analytics.md "The sync"; src/providers/social/tiktok/metrics.ts
 * `readPostMetricsBatch`): `POST /v2/video/query/` takes up to 20 ids in `filters.video_ids`
 * (docs/spec/networks.md 2.1), so 45 published videos are read in 3 calls against the TikTok fake, which
 * refuses more than 20 ids with TikTok's `invalid_params` error; a delivery without a public id costs no call
 * (all null), a video the query does not return is partial with the reason.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { syncAnalytics } from "../../src/domain/analytics/sync.ts";
import { createSocialHttp } from "../../src/providers/social/http.ts";
import { TIKTOK_VIDEOS_PER_CALL } from "../../src/providers/social/tiktok/metrics.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { TT_API_HOST, tiktokFake } from "../fakes/tiktok.ts";
import { startTestApp } from "../helpers/app.ts";
import { liveAccount, publishedDeliveries } from "./analytics-seed.ts";

const server = await startFakeNetworks();
const tt = tiktokFake(server, FAKE_APPS.tiktok);
const app = await startTestApp({ env: liveNetworkEnv(server, ["tiktok"]) });
const me = await app.user({ plan: "pro" });
const db = app.ctx.db;

const creator = tt.addCreator({ username: "batch" });
const videos = Array.from({ length: 45 }, (_, i) => tt.addVideo(creator.openId, { view_count: 100 + i }));
const accountId = await liveAccount(app, me, "tiktok", {
  id: creator.openId,
  accessToken: creator.accessToken,
  scopes: [],
  capabilities: { text: false, image: true, carousel: true, video: true },
});
// 45 public videos, plus one delivery with only its publish_id (SELF_ONLY: no public id).
const ids = [...videos, "v_pub_file~selfonly"];
const deliveries = await publishedDeliveries(app, me, accountId, ids, {
  type: "video",
  networkIds: (i) => (i === 45 ? { publishId: ids[i]! } : { publishId: `v_pub_${i}` }),
});

test("45 TikTok videos in 3 video/query calls of at most 20 ids; every counter saved", async () => {
  tt.videos.delete(videos[30]!);
  const before = server.counter("tiktok.video.query");
  const report = await syncAnalytics(app.ctx);
  assert.equal(server.counter("tiktok.video.query") - before, Math.ceil(45 / TIKTOK_VIDEOS_PER_CALL));
  assert.deepEqual(report.networks.tiktok, {
    accounts_synced: 1,
    accounts_failed: 0,
    posts_synced: 45,
    posts_failed: 1,
  });
  const rows = new Map(
    (await db("post_metrics").whereIn("delivery_id", deliveries)).map((r) => [r.delivery_id, r]),
  );
  assert.equal(rows.get(deliveries[0])!.views, 100);
  assert.equal(rows.get(deliveries[44])!.views, 144);
  assert.match(rows.get(deliveries[30])!.last_error, /TikTok did not return this post/);
  assert.equal(rows.get(deliveries[45])!.views, null, "no public id: null, no call");
});

test("the TikTok fake refuses more than 20 ids with TikTok's invalid_params error", async () => {
  const res = await createSocialHttp(server.url).fetch(
    `https://${TT_API_HOST}/v2/video/query/?fields=id,view_count`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${creator.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ filters: { video_ids: videos.slice(0, 21) } }),
    },
  );
  assert.equal(res.status, 400);
  const body = (await res.json()) as { error: { code: string; message: string; log_id: string } };
  assert.equal(body.error.code, "invalid_params");
  assert.match(body.error.message, /1 to 20/);
});
