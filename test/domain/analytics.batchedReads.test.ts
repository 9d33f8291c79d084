/**
 * Batched post reads of the metrics sync (docs/analytics.md "The sync"; src/domain/analytics/sync.ts with the
 * adapters' `readPostMetricsBatch`): YouTube `videos.list` reads up to 50 videos per call and X `GET
 * /2/tweets` up to 100 posts per call, against fakes that refuse bigger batches with the networks' error
 * bodies and count the calls; each post's counters are saved, a post the network no longer lists is partial
 * with its reason. YouTube's daily quota units (ANALYTICS_YOUTUBE_DAILY_QUOTA) are counted and, once spent,
 * stop the app.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { syncAnalytics } from "../../src/domain/analytics/sync.ts";
import { createSocialHttp } from "../../src/providers/social/http.ts";
import type { Network } from "../../src/providers/social/types.ts";
import { X_POSTS_PER_CALL } from "../../src/providers/social/x/metrics.ts";
import { YOUTUBE_VIDEOS_PER_CALL } from "../../src/providers/social/youtube/metrics.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { X_API_HOST, xFake } from "../fakes/x.ts";
import { GOOGLE_APIS_HOST, SCOPE_READONLY, SCOPE_UPLOAD, youtubeFake } from "../fakes/youtube.ts";
import { startTestApp } from "../helpers/app.ts";
import { liveAccount as seedAccount, publishedDeliveries } from "./analytics-seed.ts";

const server = await startFakeNetworks();
const yt = youtubeFake(server, FAKE_APPS.youtube);
const x = xFake(server, FAKE_APPS.x);
// 6 YouTube units a day: the first sync spends 4 (channels.list + 3 videos.list), the next runs out.
const app = await startTestApp({
  env: { ...liveNetworkEnv(server, ["youtube", "x"]), ANALYTICS_YOUTUBE_DAILY_QUOTA: "6" },
});
const me = await app.user({ plan: "pro" });
const db = app.ctx.db;

const liveAccount = (network: Network, id: string, accessToken: string, scopes: string[]) =>
  seedAccount(app, me, network, { id, accessToken, scopes });
const published = (accountId: string, ids: string[]) =>
  publishedDeliveries(app, me, accountId, ids, { type: "video" });

const ytUser = yt.addUser({ subscriberCount: 10 });
const channel = ytUser.channel!;
const videos = Array.from({ length: 120 }, (_, i) =>
  yt.addVideo(channel.id, { viewCount: 1000 + i, likeCount: i, commentCount: 1 }),
);
const ytAccount = await liveAccount("youtube", channel.id, ytUser.accessToken, [
  SCOPE_UPLOAD,
  SCOPE_READONLY,
]);
const ytDeliveries = await published(ytAccount, videos);

const xUser = x.addUser({ followers: 5 });
const tweets = Array.from({ length: 250 }, (_, i) => x.addTweet(xUser.id, { impression_count: 500 + i }));
const xAccount = await liveAccount("x", xUser.id, xUser.accessToken, []);
const xDeliveries = await published(xAccount, tweets);

test("YouTube: 120 videos in 3 videos.list calls, X: 250 posts in 3 GET /2/tweets calls; every counter saved", async () => {
  yt.videos.get(videos[7]!)!.uploadStatus = "deleted";
  x.tweets.delete(tweets[200]!);
  const ytBefore = server.counter("youtube.videos.list");
  const xBefore = server.counter("x.tweets.lookup");
  const report = await syncAnalytics(app.ctx);
  assert.equal(server.counter("youtube.videos.list") - ytBefore, Math.ceil(120 / YOUTUBE_VIDEOS_PER_CALL));
  assert.equal(server.counter("x.tweets.lookup") - xBefore, Math.ceil(250 / X_POSTS_PER_CALL));
  assert.deepEqual(report.networks.youtube, {
    accounts_synced: 1,
    accounts_failed: 0,
    posts_synced: 119,
    posts_failed: 1,
  });
  assert.deepEqual(report.networks.x, {
    accounts_synced: 1,
    accounts_failed: 0,
    posts_synced: 249,
    posts_failed: 1,
  });

  const ytRows = new Map(
    (await db("post_metrics").whereIn("delivery_id", ytDeliveries)).map((r) => [r.delivery_id, r]),
  );
  assert.equal(ytRows.get(ytDeliveries[0])!.views, 1000);
  assert.equal(ytRows.get(ytDeliveries[119])!.views, 1119);
  assert.equal(ytRows.get(ytDeliveries[119])!.likes, 119);
  assert.match(ytRows.get(ytDeliveries[7])!.last_error, /YouTube no longer lists the video/);
  const xRows = new Map(
    (await db("post_metrics").whereIn("delivery_id", xDeliveries)).map((r) => [r.delivery_id, r]),
  );
  assert.equal(xRows.get(xDeliveries[249])!.views, 749);
  assert.equal(xRows.get(xDeliveries[199])!.views, 699);
  assert.match(xRows.get(xDeliveries[200])!.last_error, /X did not return the post \(.*Could not find tweet/);
});

test("the fakes refuse a batch over the networks' limits with the networks' error bodies", async () => {
  const http = createSocialHttp(server.url);
  const yt51 = await http.fetch(
    `https://${GOOGLE_APIS_HOST}/youtube/v3/videos?part=statistics&id=${videos.slice(0, 51).join(",")}`,
    { headers: { authorization: `Bearer ${ytUser.accessToken}` } },
  );
  assert.equal(yt51.status, 400);
  const ytBody = (await yt51.json()) as { error: { code: number; errors: Array<{ reason: string }> } };
  assert.equal(ytBody.error.code, 400);
  assert.equal(ytBody.error.errors[0]!.reason, "invalidParameter");
  const x101 = await http.fetch(
    `https://${X_API_HOST}/2/tweets?tweet.fields=public_metrics&ids=${tweets.slice(0, 101).join(",")}`,
    { headers: { authorization: `Bearer ${xUser.accessToken}` } },
  );
  assert.equal(x101.status, 400);
  const xBody = (await x101.json()) as { type: string; errors: Array<{ message: string }> };
  assert.equal(xBody.type, "https://api.twitter.com/2/problems/invalid-request");
  // 101 ids break X's description (`ids` has at most 100 items): the contract check answers X's error.
  assert.match(xBody.errors[0]!.message, /ids must NOT have more than 100 items/);
  assert.deepEqual(
    server.takeViolations().map((v) => [v.provider, v.kind, v.param]),
    [["x", "invalid_value", "ids"]],
  );
});

test("YouTube quota units: once the day's units are spent, the app's YouTube reads stop until midnight Pacific", async () => {
  const calls = server.counter("youtube.videos.list");
  const report = await syncAnalytics(app.ctx);
  // Units 5 and 6: channels.list and the first videos.list; the 7th call is not made.
  assert.equal(server.counter("youtube.videos.list") - calls, 1);
  assert.deepEqual(report.networks.youtube, {
    accounts_synced: 1,
    accounts_failed: 0,
    posts_synced: 50,
    posts_failed: 70,
  });
  // Oldest first: the 50 oldest were read, the newest 70 wait for the next sync.
  const last = await db("post_metrics").where({ delivery_id: ytDeliveries[0] }).first();
  assert.match(
    last.last_error,
    /daily YouTube quota for the sync \(6 units, ANALYTICS_YOUTUBE_DAILY_QUOTA\) is used up/,
  );
  assert.equal(last.views, 1000, "the saved value stays");
  const stop = await db("analytics_rate_stops").where({ scope_key: "youtube:app" }).first();
  assert.ok(stop && new Date(stop.until).getTime() > Date.now());
  assert.equal(report.networks.x?.posts_synced, 249, "X is not held up");
});
