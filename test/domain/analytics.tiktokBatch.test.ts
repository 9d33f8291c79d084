/**
 * TikTok's batched post reads (issue 27.1; src/providers/social/tiktok/metrics.ts `readPostMetricsBatch`):
 * `POST /v2/video/query/` takes up to 20 ids in `filters.video_ids` (docs/spec/networks.md 2.1), so 45
 * published videos are read in 3 calls against the TikTok fake, which refuses more than 20 ids with
 * TikTok's `invalid_params` error; a delivery without a public id costs no call (all null), a video the
 * query does not return is partial with the reason.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { syncAnalytics } from "../../src/domain/analytics/sync.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { createSocialHttp } from "../../src/providers/social/http.ts";
import { TIKTOK_VIDEOS_PER_CALL } from "../../src/providers/social/tiktok/metrics.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { TT_API_HOST, tiktokFake } from "../fakes/tiktok.ts";
import { startTestApp } from "../helpers/app.ts";

const server = await startFakeNetworks();
const tt = tiktokFake(server, FAKE_APPS.tiktok);
const app = await startTestApp({ env: liveNetworkEnv(server, ["tiktok"]) });
const me = await app.user({ plan: "pro" });
const db = app.ctx.db;

const creator = tt.addCreator({ username: "batch" });
const videos = Array.from({ length: 45 }, (_, i) => tt.addVideo(creator.openId, { view_count: 100 + i }));
const { account } = await upsertConnectedAccount(
  db,
  app.ctx.sealer,
  { userId: me.user_id, workspaceId: me.workspace_id },
  {
    network: "tiktok",
    mode: "live",
    account: {
      networkAccountId: creator.openId,
      handle: "batch",
      capabilities: { text: false, image: true, carousel: true, video: true },
      metadata: {},
    },
    tokens: { accessToken: creator.accessToken, scopes: [] },
    now: new Date(),
  },
);
// 45 public videos, plus one delivery with only its publish_id (SELF_ONLY: no public id).
const ids = [...videos, "v_pub_file~selfonly"];
const posts = await db("posts")
  .insert(
    ids.map((_, i) => ({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      type: "video",
      status: "published",
      caption: `V ${i}`,
    })),
  )
  .returning("id");
const deliveries: string[] = (
  await db("deliveries")
    .insert(
      ids.map((id, i) => ({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        post_id: posts[i].id,
        social_account_id: account.social_account_id,
        status: "published",
        provider_post_id: id,
        network_ids: JSON.stringify(i === 45 ? { publishId: id } : { publishId: `v_pub_${i}` }),
        published_at: new Date(Date.now() - (i + 1) * 60_000),
      })),
    )
    .returning("id")
).map((r: { id: string }) => r.id);

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
