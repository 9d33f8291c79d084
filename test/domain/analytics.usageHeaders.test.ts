/**
 * Rate limits learned from SUCCESSFUL answers (docs/analytics.md "Failures and rate limits";
 * src/providers/social/usage.ts, the sync's pacer src/domain/analytics/pacing.ts): the X fake answers every
 * read with `x-rate-limit-*` per user token, the Facebook fake every Graph answer with `X-App-Usage` and the
 * Page's `X-Business-Use-Case-Usage`, as the real APIs do. A 200 that says the budget is spent stops further
 * calls for that token (X, a Page's BUC) or for the whole app (`X-App-Usage`), before the network ever
 * refuses; the other accounts are read, what is left is partial with the reason, for the next night.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { syncAnalytics } from "../../src/domain/analytics/sync.ts";
import type { Network } from "../../src/providers/social/types.ts";
import { FB_GRAPH_HOST, FB_SCOPES_GRANTED, facebookFake } from "../fakes/facebook.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { X_API_HOST, xFake } from "../fakes/x.ts";
import { startTestApp } from "../helpers/app.ts";
import { liveAccount as seedAccount, publishedDeliveries } from "./analytics-seed.ts";

const server = await startFakeNetworks();
const x = xFake(server, FAKE_APPS.x);
const fb = facebookFake(server, FAKE_APPS.facebook);
const app = await startTestApp({
  env: {
    ...liveNetworkEnv(server, ["x", "facebook"]),
    ANALYTICS_SYNC_PAUSE_MS: "0",
    ANALYTICS_SYNC_MAX_WAIT_SECONDS: "30",
  },
});
const me = await app.user({ plan: "pro" });
const db = app.ctx.db;

const liveAccount = (network: Network, id: string, accessToken: string, scopes: string[]) =>
  seedAccount(app, me, network, { id, accessToken, scopes });
const published = (accountId: string, ids: string[]) =>
  publishedDeliveries(app, me, accountId, ids, { type: "text" });

const postErrors = async (ids: string[]) =>
  (await db("post_metrics").whereIn("delivery_id", ids).select("last_error", "synced_at")).map(
    (r) => r.last_error as string | null,
  );

test("X: a 200 with x-rate-limit-remaining 0 stops that token's reads; the other account is read in full", async () => {
  // One GET /2/tweets a window per user: the first batch's answer says the window is used up (reset in
  // 15 min, beyond ANALYTICS_SYNC_MAX_WAIT_SECONDS).
  x.readLimits["/2/tweets"] = 1;
  const heavy = x.addUser({ followers: 1 });
  const light = x.addUser({ followers: 2 });
  const heavyTweets = Array.from({ length: 150 }, () => x.addTweet(heavy.id, { impression_count: 5 }));
  const lightTweets = Array.from({ length: 40 }, () => x.addTweet(light.id, { impression_count: 7 }));
  const heavyAccount = await liveAccount("x", heavy.id, heavy.accessToken, []);
  const lightAccount = await liveAccount("x", light.id, light.accessToken, []);
  const heavyDeliveries = await published(heavyAccount, heavyTweets);
  const lightDeliveries = await published(lightAccount, lightTweets);
  const lookupsBefore = server.counter("x.tweets.lookup");
  await syncAnalytics(app.ctx);
  // Heavy: its first 100 posts read, the other 50 partial with X's stated reset; one call only, never a 429.
  const heavyErrors = await postErrors(heavyDeliveries);
  assert.equal(heavyErrors.filter((e) => e === null).length, 100);
  const stopped = heavyErrors.filter((e) => e !== null);
  assert.equal(stopped.length, 50);
  for (const e of stopped)
    assert.match(
      e!,
      /X said this account's read budget is spent \(x-rate-limit-remaining 0; back in \d+ s\)/,
    );
  // Light: one call for its 40 posts, all read.
  assert.deepEqual(new Set(await postErrors(lightDeliveries)), new Set([null]));
  assert.equal(
    server.counter("x.tweets.lookup") - lookupsBefore,
    2,
    "one call per account, none after the stop",
  );
  assert.equal(server.hitsFor(X_API_HOST, "/2/tweets", "GET").filter((h) => h.status === 429).length, 0);
  assert.equal(await db("analytics_rate_stops").where({ scope_key: "x:app" }).first(), undefined);
  x.readLimits["/2/tweets"] = 900;
  await db("social_accounts").whereIn("id", [heavyAccount, lightAccount]).update({ status: "disconnected" });
});

// Facebook: three Pages, each with its own Page token and one post.
const fbUser = fb.addUser({ name: "Owner", pages: ["P1", "P2", "P3"] });
const pages: Array<{ pageId: string; accountId: string; delivery: string }> = [];
for (const page of fbUser.pages) {
  fb.followers.set(page.id, 10);
  const postId = fb.addPost(page, "hello");
  const accountId = await liveAccount("facebook", page.id, page.accessToken, FB_SCOPES_GRANTED);
  const [delivery] = await published(accountId, [postId]);
  pages.push({ pageId: page.id, accountId, delivery: delivery! });
}
pages.sort((a, b) => a.accountId.localeCompare(b.accountId)); // the jobs' order
const accountError = async (accountId: string) =>
  (await db("account_metrics").where({ social_account_id: accountId }).first())?.last_error as
    | string
    | null
    | undefined;
const graphCalls = (pageId: string) => server.hitsFor(FB_GRAPH_HOST, new RegExp(`^/${pageId}`), "GET").length;

test("Facebook: a Page's X-Business-Use-Case-Usage at 100 on a 200 stops that Page's token only", async () => {
  // Each Page may make one call a day: the account read answers 200 with call_count 100.
  fb.graphUsage.bucLimit = 1;
  fb.graphUsage.reset(); // the first test's sync read the Pages too
  await syncAnalytics(app.ctx);
  for (const p of pages) {
    assert.equal(await accountError(p.accountId), null, "the account read itself was saved");
    const [postError] = await postErrors([p.delivery]);
    assert.match(
      postError!,
      /said this account's read budget is spent \(X-Business-Use-Case-Usage call_count 100%; back in \d+ s\)/,
    );
  }
  assert.equal(
    server.hitsFor(FB_GRAPH_HOST, /.*/).filter((h) => h.status === 400).length,
    0,
    "Facebook never had to refuse a call",
  );
  assert.equal(await db("analytics_rate_stops").where({ scope_key: "facebook:app" }).first(), undefined);
  fb.graphUsage.bucLimit = 4800;
});

test("Facebook: X-App-Usage at 100 on a 200 stops every Page of the app until the hour is over; partial", async () => {
  const [first, second, third] = pages as [(typeof pages)[0], (typeof pages)[0], (typeof pages)[0]];
  const thirdBefore = graphCalls(third.pageId);
  // Two more calls this hour: the first Page's account read (50%), then its post read answers 100%.
  fb.graphUsage.reset();
  fb.graphUsage.appLimit = 2;
  await syncAnalytics(app.ctx);
  assert.equal(await accountError(first.accountId), null);
  for (const p of [second, third])
    assert.match(
      (await accountError(p.accountId))!,
      /said the app's read budget is spent \(X-App-Usage call_count 100%; back in 3600 s\)/,
    );
  assert.equal(graphCalls(third.pageId), thirdBefore, "no call for the last Page once the app is stopped");
  assert.equal(
    server.hitsFor(FB_GRAPH_HOST, /.*/).filter((h) => h.status === 400).length,
    0,
    "Facebook never had to refuse a call",
  );
  const stop = await db("analytics_rate_stops").where({ scope_key: "facebook:app" }).first();
  assert.ok(stop && new Date(stop.until).getTime() > Date.now() + 3000_000, "stopped for about an hour");
});
