/**
 * The metrics sync (src/domain/analytics/sync.ts) against the provider-shaped fakes (test/fakes/) for live
 * Instagram, Facebook and TikTok accounts, and the sandbox connector for a sandbox account, read back through
 * the Pro analytics tools: the networks' exact numbers, nulls listed as missing, `source`, coverage; a failed
 * read keeps the previous values (partial, with the reason); 429 waited out or the network left for the next
 * run; a revoked token -> needs_reconnect; an idempotent re-run; `admin analytics sync --now`; the last sync
 * on /settings/social.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { runAdmin } from "../../src/cli/admin.ts";
import { UsageError } from "../../src/cli/args.ts";
import { syncAnalytics } from "../../src/domain/analytics/sync.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import type { Capabilities, NetworkIds } from "../../src/providers/social/network.ts";
import type { Network } from "../../src/providers/social/types.ts";
import { handler as accountHandler } from "../../src/tools/analytics/get_account_analytics.ts";
import { handler as bestHandler } from "../../src/tools/analytics/get_best_performing_content.ts";
import { handler as postHandler } from "../../src/tools/analytics/get_post_analytics.ts";
import { facebookFake, FB_GRAPH_HOST, FB_SCOPES_GRANTED } from "../fakes/facebook.ts";
import { IG_GRAPH_HOST, instagramFake } from "../fakes/instagram.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { TT_API_HOST, tiktokFake } from "../fakes/tiktok.ts";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";
import { account as sandboxAccount, inline, named } from "../tools/carousels/fixtures.ts";

const server = await startFakeNetworks();
const ig = instagramFake(server, FAKE_APPS.instagram);
const fb = facebookFake(server, FAKE_APPS.facebook);
const tt = tiktokFake(server, FAKE_APPS.tiktok);
const app = await startTestApp({ env: liveNetworkEnv(server, ["instagram", "facebook", "tiktok"]) });
const me = await app.user({ plan: "pro" });
const owner = { userId: me.user_id, workspaceId: me.workspace_id };
const db = app.ctx.db;

const accountTool = named("get_account_analytics", accountHandler);
const postTool = named("get_post_analytics", postHandler);
const bestTool = named("get_best_performing_content", bestHandler);

const CAN: Capabilities = { text: true, image: true, carousel: true, video: true };

/** A live account of `network` with the fake's token and the scopes the connect flow asks for. */
async function liveAccount(
  network: Network,
  networkAccountId: string,
  accessToken: string,
  scopes: string[],
) {
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network,
    mode: "live",
    account: { networkAccountId, handle: `${network}.shop`, capabilities: CAN },
    tokens: { accessToken, scopes },
    now: new Date(),
  });
  return account.social_account_id;
}

let published = 0;
/** A post published through the service to `accountId` as network post `networkPostId`; its delivery id. */
async function delivered(accountId: string, networkPostId: string, networkIds: NetworkIds = {}) {
  published += 1;
  const [post] = await db("posts")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      type: "video",
      status: "published",
      caption: `Post ${published}`,
    })
    .returning("id");
  const [delivery] = await db("deliveries")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      post_id: post.id,
      social_account_id: accountId,
      status: "published",
      provider_post_id: networkPostId,
      network_ids: JSON.stringify(networkIds),
      published_at: new Date(Date.now() - published * 60_000),
    })
    .returning("id");
  return { postId: post.id as string, deliveryId: delivery.id as string };
}

const accountsOut = async () =>
  new Map((await inline(app, me, accountTool, {})).data.accounts.map((a) => [a.social_account_id, a]));
const deliveryOut = async (d: { postId: string; deliveryId: string }) =>
  (await inline(app, me, postTool, { post_id: d.postId })).data.deliveries.find(
    (x) => x.delivery_id === d.deliveryId,
  )!;

// Instagram: a professional account with one Reel.
const igUser = ig.addUser({ username: "ig.shop" });
ig.followers.set(igUser.userId, 1200);
const igAccount = await liveAccount("instagram", igUser.userId, igUser.accessToken, [
  "instagram_business_basic",
  "instagram_business_content_publish",
  "instagram_business_manage_insights",
]);
const igMedia = ig.addMedia(igUser.userId, "VIDEO");
ig.insights.set(igMedia, { views: 5000, reach: 4100, likes: 320, comments: 41, shares: 12, saved: 30 });
const igPost = await delivered(igAccount, igMedia, { mediaId: igMedia });

// Facebook: a Page with one post.
const fbUser = fb.addUser({ name: "Fb Owner", pages: ["Fb Shop"] });
const fbPage = fbUser.pages[0]!;
fb.followers.set(fbPage.id, 950);
const fbAccount = await liveAccount("facebook", fbPage.id, fbPage.accessToken, FB_SCOPES_GRANTED);
const fbPostId = fb.addPost(fbPage, "Counted");
fb.postStats.set(fbPostId, { reactions: 75, comments: 8, shares: 5, views: 3100, reach: 2500 });
const fbPost = await delivered(fbAccount, fbPostId, { postId: fbPostId });

// TikTok: a creator with one public video.
const ttCreator = tt.addCreator({ username: "tt.shop" });
tt.stats.set(ttCreator.openId, {
  follower_count: 7000,
  following_count: 3,
  likes_count: 88_000,
  video_count: 4,
});
const ttAccount = await liveAccount("tiktok", ttCreator.openId, ttCreator.accessToken, [
  "user.info.basic",
  "user.info.profile",
  "user.info.stats",
  "video.list",
  "video.publish",
]);
const ttVideo = tt.addVideo(ttCreator.openId, {
  view_count: 12_000,
  like_count: 900,
  comment_count: 33,
  share_count: 21,
});
const ttPost = await delivered(ttAccount, ttVideo, { publishId: "v_pub_file~v2-1.1" });

// A sandbox account (Pinterest has no live adapter here) with one post.
const sbAccount = await sandboxAccount(app, me, "pinterest", "Sandbox Pins");
const sbPost = await delivered(sbAccount, "sandbox-post-1");

test("live accounts: the networks' exact numbers, nulls listed as missing, source network, coverage", async () => {
  const report = await syncAnalytics(app.ctx);
  for (const n of ["instagram", "facebook", "tiktok", "pinterest"] as const)
    assert.deepEqual(
      report.networks[n],
      { accounts_synced: 1, accounts_failed: 0, posts_synced: 1, posts_failed: 0 },
      n,
    );
  const accounts = await accountsOut();
  const common = { synced_at: report.synced_at, source: "network", sync_error: null };
  const pick = (id: string) => {
    const a = accounts.get(id)!;
    return {
      followers: a.followers,
      views: a.views,
      likes: a.likes,
      comments: a.comments,
      shares: a.shares,
      synced_at: a.synced_at,
      source: a.source,
      sync_error: a.sync_error,
      missing: a.missing,
      coverage: a.coverage,
    };
  };
  assert.deepEqual(pick(igAccount), {
    followers: 1200,
    views: null,
    likes: null,
    comments: null,
    shares: null,
    ...common,
    missing: ["views", "likes", "comments", "shares"],
    coverage: "partial",
  });
  assert.deepEqual(pick(fbAccount), {
    followers: 950,
    views: null,
    likes: null,
    comments: null,
    shares: null,
    ...common,
    missing: ["views", "likes", "comments", "shares"],
    coverage: "partial",
  });
  assert.deepEqual(pick(ttAccount), {
    followers: 7000,
    views: null,
    likes: 88_000,
    comments: null,
    shares: null,
    ...common,
    missing: ["views", "comments", "shares"],
    coverage: "partial",
  });
  const counters = (d: Awaited<ReturnType<typeof deliveryOut>>) => [
    d.views,
    d.reach,
    d.likes,
    d.comments,
    d.shares,
    d.saves,
  ];
  const ig1 = await deliveryOut(igPost);
  assert.deepEqual(counters(ig1), [5000, 4100, 320, 41, 12, 30]);
  assert.deepEqual(
    [ig1.coverage, ig1.missing, ig1.source, ig1.sync_error],
    ["complete", [], "network", null],
  );
  const fb1 = await deliveryOut(fbPost);
  assert.deepEqual(counters(fb1), [3100, 2500, 75, 8, 5, null]);
  assert.deepEqual([fb1.coverage, fb1.missing], ["partial", ["saves"]]);
  const tt1 = await deliveryOut(ttPost);
  assert.deepEqual(counters(tt1), [12_000, null, 900, 33, 21, null]);
  assert.deepEqual([tt1.coverage, tt1.missing, tt1.source], ["partial", ["reach", "saves"], "network"]);
});

test("a sandbox account's numbers are labelled sandbox everywhere", async () => {
  const sb = (await accountsOut()).get(sbAccount)!;
  assert.equal(sb.source, "sandbox");
  assert.equal(typeof sb.followers, "number");
  const d = await deliveryOut(sbPost);
  assert.equal(d.source, "sandbox");
  assert.equal(typeof d.views, "number");
  assert.deepEqual(d.missing, ["reach", "shares"]);
  const best = (await inline(app, me, bestTool, { network: "pinterest" })).data;
  assert.equal(best.ranked_by, "views");
  assert.deepEqual(
    best.items.flatMap((i) => i.deliveries.map((x) => [x.delivery_id, x.views, x.source])),
    [[sbPost.deliveryId, d.views, "sandbox"]],
  );
});

test("best performing: top 5 by saved views, each with coverage and source", async () => {
  const best = (await inline(app, me, bestTool, {})).data;
  const live = best.items.filter((i) => i.deliveries.every((x) => x.source === "network"));
  assert.ok(
    best.items.every((i) => i.deliveries.length === 1),
    "one network per post here",
  );
  assert.deepEqual(
    live.map((i) => [i.deliveries[0]!.delivery_id, i.views, i.coverage]),
    [
      [ttPost.deliveryId, 12_000, "partial"],
      [igPost.deliveryId, 5000, "complete"],
      [fbPost.deliveryId, 3100, "partial"],
    ],
  );
  const views = best.items.map((i) => i.views);
  assert.deepEqual(
    views,
    [...views].sort((a, b) => b - a),
  );
  assert.ok(best.items.length <= 5);
});

test("a failed read keeps the previous values, partial with the reason; the rest syncs", async () => {
  const before = await deliveryOut(igPost);
  const fbBefore = (await accountsOut()).get(fbAccount)!;
  ig.insights.set(igMedia, {
    views: 9999,
    reach: 9999,
    likes: 9999,
    comments: 9999,
    shares: 9999,
    saved: 9999,
  });
  fb.followers.set(fbPage.id, 1000);
  tt.videos.get(ttVideo)!.view_count = 12_500;
  server.fault(
    { host: IG_GRAPH_HOST, path: `/${igMedia}/insights` },
    {
      kind: "status",
      status: 500,
      body: { error: { message: "An unexpected error has occurred.", code: 2, is_transient: true } },
    },
  );
  server.fault(
    { host: FB_GRAPH_HOST, path: `/${fbPage.id}`, method: "GET" },
    { kind: "status", status: 503, body: { error: { message: "Service temporarily unavailable", code: 2 } } },
  );
  const report = await syncAnalytics(app.ctx);
  assert.deepEqual(report.networks.instagram, {
    accounts_synced: 1,
    accounts_failed: 0,
    posts_synced: 0,
    posts_failed: 1,
  });
  assert.deepEqual(report.networks.facebook, {
    accounts_synced: 0,
    accounts_failed: 1,
    posts_synced: 1,
    posts_failed: 0,
  });
  const after = await deliveryOut(igPost);
  assert.equal(after.views, before.views, "previous value kept");
  assert.equal(after.synced_at, before.synced_at, "values as of the last successful sync");
  assert.equal(after.coverage, "partial");
  assert.match(after.sync_error ?? "", /temporarily.*unexpected error/);
  const fbAfter = (await accountsOut()).get(fbAccount)!;
  assert.equal(fbAfter.followers, fbBefore.followers);
  assert.equal(fbAfter.synced_at, fbBefore.synced_at);
  assert.match(fbAfter.sync_error ?? "", /Service temporarily unavailable/);
  assert.equal((await deliveryOut(ttPost)).views, 12_500, "other networks synced");
  assert.equal((await deliveryOut(ttPost)).sync_error, null);
  // The next successful sync clears the error.
  await syncAnalytics(app.ctx);
  const healed = await deliveryOut(igPost);
  assert.deepEqual([healed.views, healed.sync_error, healed.coverage], [9999, null, "complete"]);
});

test("a metric Facebook refuses is missing with its reason and the permission; the others are saved", async () => {
  fb.postStats.set(fbPostId, { reactions: 80, comments: 9, shares: 6, views: 3300, reach: 2600 });
  fb.fieldPermissions.comments = "pages_read_user_content";
  try {
    const report = await syncAnalytics(app.ctx);
    assert.equal(report.networks.facebook?.posts_synced, 1, "a read answered in part is a synced read");
    const out = await deliveryOut(fbPost);
    assert.deepEqual(
      [out.views, out.reach, out.likes, out.comments, out.shares, out.saves],
      [3300, 2600, 80, null, 6, null],
      "the other counters are saved",
    );
    assert.deepEqual(
      [out.coverage, out.missing, out.synced_at],
      ["partial", ["comments", "saves"], report.synced_at],
    );
    assert.match(
      out.sync_error ?? "",
      /^Facebook did not report comments \(comments\.limit\(0\)\.summary\(total_count\): .*requires the 'pages_read_user_content' permission; the pages_read_user_content permission would fill it\)$/,
    );
  } finally {
    fb.fieldPermissions.comments = "pages_read_engagement";
  }
  await syncAnalytics(app.ctx);
  const healed = await deliveryOut(fbPost);
  assert.deepEqual([healed.comments, healed.sync_error, healed.missing], [9, null, ["saves"]]);
});

test("429 with a short Retry-After is waited out; a long one leaves the network for the next sync", async () => {
  server.fault({ host: TT_API_HOST, path: "/v2/video/query/" }, { kind: "rate_limit", retryAfterSeconds: 1 });
  const hits = server.hitsFor(TT_API_HOST, "/v2/video/query/").length;
  const started = Date.now();
  const report = await syncAnalytics(app.ctx);
  assert.ok(Date.now() - started >= 1000, "waited the Retry-After");
  assert.equal(server.hitsFor(TT_API_HOST, "/v2/video/query/").length - hits, 2, "the same call once more");
  assert.equal(report.networks.tiktok?.posts_synced, 1);

  const igReads = server.hitsFor(IG_GRAPH_HOST, `/${igMedia}/insights`).length;
  server.fault(
    { host: IG_GRAPH_HOST, path: `/${igUser.userId}`, method: "GET" },
    { kind: "rate_limit", retryAfterSeconds: 3600 },
  );
  const limited = await syncAnalytics(app.ctx);
  assert.deepEqual(limited.networks.instagram, {
    accounts_synced: 0,
    accounts_failed: 1,
    posts_synced: 0,
    posts_failed: 1,
  });
  assert.equal(
    server.hitsFor(IG_GRAPH_HOST, `/${igMedia}/insights`).length,
    igReads,
    "nothing more asked of Instagram",
  );
  const accounts = await accountsOut();
  assert.match(
    accounts.get(igAccount)!.sync_error ?? "",
    /Instagram rate limited this account's reads \(retry after 3600 s\)/,
  );
  assert.equal(accounts.get(igAccount)!.coverage, "partial");
  assert.equal(accounts.get(igAccount)!.followers, 1200, "previous value kept");
  assert.match((await deliveryOut(igPost)).sync_error ?? "", /retry after 3600 s/);
  assert.equal(limited.networks.tiktok?.posts_synced, 1, "other networks are not held up");
});

test("a re-run is idempotent: one row per account and delivery, same values", async () => {
  await syncAnalytics(app.ctx);
  const first = await accountsOut();
  const firstPost = await deliveryOut(fbPost);
  await syncAnalytics(app.ctx);
  const second = await accountsOut();
  const rows = await db("account_metrics").whereIn("social_account_id", [
    igAccount,
    fbAccount,
    ttAccount,
    sbAccount,
  ]);
  assert.equal(rows.length, 4);
  assert.equal(
    (
      await db("post_metrics").whereIn("delivery_id", [
        igPost.deliveryId,
        fbPost.deliveryId,
        ttPost.deliveryId,
        sbPost.deliveryId,
      ])
    ).length,
    4,
  );
  for (const [id, a] of first) {
    const { synced_at: _s1, ...rest1 } = a;
    const { synced_at: _s2, ...rest2 } = second.get(id)!;
    assert.deepEqual(rest2, rest1);
  }
  const { synced_at: _p1, ...p1 } = firstPost;
  const { synced_at: _p2, ...p2 } = await deliveryOut(fbPost);
  assert.deepEqual(p2, p1);
});

test("admin analytics sync --now runs it once and prints the counts per network", async () => {
  const out = (await runAdmin(db, ["analytics", "sync", "--now"], app.ctx)) as {
    synced_at: string;
    networks: Record<string, unknown>;
  };
  assert.ok(!Number.isNaN(Date.parse(out.synced_at)));
  assert.deepEqual(out.networks.tiktok, {
    accounts_synced: 1,
    accounts_failed: 0,
    posts_synced: 1,
    posts_failed: 0,
  });
  assert.match(
    JSON.stringify(out),
    /"instagram":\{"accounts_synced":1,"accounts_failed":0,"posts_synced":1,"posts_failed":0\}/,
  );
  await assert.rejects(runAdmin(db, ["analytics", "sync"], app.ctx), UsageError);
});

test("a revoked token: the account needs reconnecting, its posts are not read, the values stay", async () => {
  const before = await deliveryOut(fbPost);
  const reads = server.hitsFor(FB_GRAPH_HOST, `/${fbPostId}`).length;
  fb.revokeUser(fbUser.id);
  const report = await syncAnalytics(app.ctx);
  assert.deepEqual(report.networks.facebook, {
    accounts_synced: 0,
    accounts_failed: 1,
    posts_synced: 0,
    posts_failed: 1,
  });
  const row = await db("social_accounts").where({ id: fbAccount }).first();
  assert.equal(row.status, "needs_reconnect");
  assert.equal(server.hitsFor(FB_GRAPH_HOST, `/${fbPostId}`).length, reads, "the posts were not asked for");
  const fbOut = (await accountsOut()).get(fbAccount)!;
  assert.match(fbOut.sync_error ?? "", /needs to be reconnected on \/settings\/social/);
  assert.equal(fbOut.followers, 1000);
  const after = await deliveryOut(fbPost);
  assert.deepEqual(
    [after.views, after.synced_at, after.coverage],
    [before.views, before.synced_at, "partial"],
  );
  assert.match(after.sync_error ?? "", /reconnected/);
  // Next run: the account is not read at all until it is reconnected.
  const fbHits = server.hitsFor(FB_GRAPH_HOST, /.*/).length;
  await syncAnalytics(app.ctx);
  assert.equal(server.hitsFor(FB_GRAPH_HOST, /.*/).length, fbHits);
  assert.match(
    (await accountsOut()).get(fbAccount)!.sync_error ?? "",
    /Facebook account needs reconnecting: reconnect it on \/settings\/social/,
  );
});

test("/settings/social shows each account's last successful sync and why the last one failed", async () => {
  const { cookie } = await browserSession(app.ctx, me.user_id);
  const res = await fetch(`${app.url}/settings/social`, { headers: { cookie } });
  assert.equal(res.status, 200);
  const $ = cheerio.load(await res.text());
  assert.ok(
    $("th")
      .toArray()
      .some((th) => $(th).text() === "Metrics synced"),
  );
  const cell = (id: string) => $(`tr[data-account-id="${id}"] td`).eq(4);
  const igRow = await db("account_metrics").where({ social_account_id: igAccount }).first();
  const when = `${igRow.synced_at.toISOString().replace("T", " ").slice(0, 16)} UTC`;
  assert.equal(cell(igAccount).find(".last-sync").text(), when);
  assert.equal(cell(igAccount).find(".sync-error").length, 0);
  assert.match(cell(fbAccount).find(".sync-error").text(), /^Last sync failed: .*reconnect/);
});

test("a 401 first tries the refresh token: the expired token is refreshed and the read goes on; needs_reconnect only when the refresh fails", async () => {
  const creator = tt.addCreator({ username: "tt.expiring" });
  tt.stats.set(creator.openId, { follower_count: 10, following_count: 0, likes_count: 5, video_count: 1 });
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "tiktok",
    mode: "live",
    account: { networkAccountId: creator.openId, handle: "tt.expiring", capabilities: CAN },
    tokens: {
      accessToken: creator.accessToken,
      refreshToken: creator.refreshToken,
      expiresAt: new Date(Date.now() + 12 * 3600_000),
      scopes: ["user.info.basic", "user.info.profile", "user.info.stats", "video.list", "video.publish"],
    },
    now: new Date(),
  });
  const id = account.social_account_id;
  const post = await delivered(id, tt.addVideo(creator.openId, { view_count: 777 }), { publishId: "p_777" });
  const refreshes = () => server.hitsFor(TT_API_HOST, /^\/v2\/oauth\/token/).length;
  const before = refreshes();

  // The access token expired before its time (the creator changed the password, TikTok rotated it): 401.
  tt.expireAccessToken(creator.accessToken);
  await syncAnalytics(app.ctx);
  assert.equal(refreshes(), before + 1, "the refresh token was used once");
  const row = await db("social_accounts").where({ id }).first("status");
  assert.equal(row.status, "connected", "a refreshable 401 does not disconnect the account");
  const saved = (await accountsOut()).get(id)!;
  assert.deepEqual([saved.followers, saved.sync_error], [10, null]);
  assert.equal((await deliveryOut(post)).views, 777, "the posts were read with the new token");

  // The creator deauthorized the app: the refresh is refused too. Only now does the account need reconnecting.
  tt.revokeCreator(creator.openId);
  await syncAnalytics(app.ctx);
  assert.equal(refreshes(), before + 2, "the refresh was tried first");
  assert.equal((await db("social_accounts").where({ id }).first("status")).status, "needs_reconnect");
  assert.match((await accountsOut()).get(id)!.sync_error ?? "", /reconnected on \/settings\/social/);
});
