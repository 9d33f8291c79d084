/**
 * syncAnalytics over sandbox accounts and the Pro analytics tools: saved lifetime counters (the sandbox
 * connector's, labelled `source: "sandbox"`), null vs 0, missing metrics, coverage, a not-connected account's
 * sync error, cohorts, top 5 by views.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { syncAnalytics } from "../../../src/domain/analytics/sync.ts";
import { adapterAccount } from "../../../src/domain/social/account-settings.ts";
import { openAccount } from "../../../src/domain/social/accounts.ts";
import { handler as accountHandler } from "../../../src/tools/analytics/get_account_analytics.ts";
import { handler as bestHandler } from "../../../src/tools/analytics/get_best_performing_content.ts";
import { handler as postHandler } from "../../../src/tools/analytics/get_post_analytics.ts";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import { handler as scheduleHandler } from "../../../src/tools/social/schedule_post.ts";
import {
  account,
  imagePost,
  inline,
  key,
  named,
  reviewed,
  setup,
  textPost,
  toolError,
} from "../carousels/fixtures.ts";

const accountAnalytics = named("get_account_analytics", accountHandler);
const postAnalytics = named("get_post_analytics", postHandler);
const best = named("get_best_performing_content", bestHandler);
const publish = named("publish_post", publishHandler);

const { app, me, other, peer } = await setup("pro");
const insta = await account(app, me, "instagram", "Insta");
const linkedin = await account(app, me, "linkedin", "LinkedIn");
const expired = await account(app, me, "facebook", "Old page");

const posts: string[] = [];
for (let i = 0; i < 4; i++) {
  const id = await imagePost(app, me, `Post number ${i}`);
  await reviewed(app, me, publish, {
    post_id: id,
    social_account_ids: [insta, linkedin],
    idempotency_key: key(),
  });
  posts.push(id);
}
const pendingPost = await textPost(app, me, "Never published");
await reviewed(app, me, named("schedule_post", scheduleHandler), {
  post_id: pendingPost,
  social_account_ids: [expired],
  scheduled_for: new Date(Date.now() + 24 * 3600_000).toISOString(),
  idempotency_key: key(),
});
// The account expires after the post was scheduled (an expired account is refused at the call): its
// delivery stays pending and the account cannot be read by the sync.
await app.ctx.db("social_accounts").where({ id: expired }).update({ status: "expired" });

test("before any sync, counters are null and coverage is none (missing, not zero)", async () => {
  const out = await inline(app, me, accountAnalytics, {});
  assert.equal(out.data.accounts.length, 3);
  for (const a of out.data.accounts) {
    assert.equal(a.synced_at, null);
    assert.equal(a.coverage, "none");
    assert.equal(a.views, null);
    assert.deepEqual([a.source, a.missing, a.sync_error], ["sandbox", [], null]);
  }
  const p = await inline(app, me, postAnalytics, { post_id: posts[0]! });
  assert.equal(p.data.deliveries.length, 2);
  assert.ok(p.data.deliveries.every((d) => d.coverage === "none" && d.views === null));
  assert.equal(p.data.coverage, "none");
  assert.deepEqual((await inline(app, me, best, {})).data.items, []);
});

test("syncAnalytics saves the sandbox counters labelled sandbox; unreported metrics are null and missing", async () => {
  const report = await syncAnalytics(app.ctx);
  assert.deepEqual(report.networks.instagram, {
    accounts_synced: 1,
    accounts_failed: 0,
    posts_synced: 4,
    posts_failed: 0,
  });
  assert.deepEqual(report.networks.linkedin, {
    accounts_synced: 1,
    accounts_failed: 0,
    posts_synced: 4,
    posts_failed: 0,
  });
  assert.deepEqual(report.networks.facebook, {
    accounts_synced: 0,
    accounts_failed: 1,
    posts_synced: 0,
    posts_failed: 0,
  });
  const out = await inline(app, me, accountAnalytics, {});
  const ig = out.data.accounts.find((a) => a.social_account_id === insta)!;
  const li = out.data.accounts.find((a) => a.social_account_id === linkedin)!;
  const fb = out.data.accounts.find((a) => a.social_account_id === expired)!;
  const sandbox = app.ctx.providers.networks.forAccount("instagram", "sandbox");
  const expected = await sandbox.metrics!.account(
    adapterAccount(await openAccount(app.ctx.db, app.ctx.sealer, insta)),
  );
  assert.deepEqual(
    { followers: ig.followers, views: ig.views, likes: ig.likes, comments: ig.comments, shares: ig.shares },
    expected,
  );
  assert.equal(typeof ig.followers, "number");
  assert.equal(ig.source, "sandbox", "sandbox numbers say so");
  assert.deepEqual(ig.missing, ["views", "likes", "comments", "shares"]);
  assert.equal(ig.coverage, "partial");
  assert.equal(ig.sync_error, null);
  assert.equal(ig.synced_at, report.synced_at);
  assert.equal(li.views, null);
  assert.equal(li.coverage, "partial");
  assert.equal(fb.coverage, "none", "never read: no saved values");
  assert.equal(fb.synced_at, null);
  assert.match(fb.sync_error ?? "", /Facebook account has expired: reconnect it on \/settings\/social/);
  const filtered = await inline(app, me, accountAnalytics, { network: "linkedin" });
  assert.deepEqual(
    filtered.data.accounts.map((a) => a.social_account_id),
    [linkedin],
  );

  const p = await inline(app, me, postAnalytics, { post_id: posts[0]! });
  const liDelivery = p.data.deliveries.find((d) => d.network === "linkedin")!;
  assert.equal(liDelivery.views, null);
  assert.equal(liDelivery.saves, null);
  assert.deepEqual(liDelivery.missing, ["views", "saves"]);
  assert.equal(liDelivery.coverage, "partial");
  const igDelivery = p.data.deliveries.find((d) => d.network === "instagram")!;
  assert.equal(igDelivery.coverage, "complete");
  assert.deepEqual(igDelivery.missing, []);
  assert.equal(igDelivery.source, "sandbox");
  assert.equal(typeof igDelivery.views, "number");
  assert.equal(typeof igDelivery.reach, "number");
  assert.equal(p.data.coverage, "partial", "LinkedIn's views are missing: the post is partial");
  // A delivery that never got published has no analytics.
  assert.deepEqual((await inline(app, me, postAnalytics, { post_id: pendingPost })).data.deliveries, []);
});

test("best performing content ranks by available views, at most 5, within a publication cohort", async () => {
  const out0 = await inline(app, me, best, {});
  assert.equal(out0.data.items.length, 4, "linkedin deliveries have no views and are not ranked");
  for (let i = 4; i < 7; i++) {
    const id = await imagePost(app, me, `Post number ${i}`);
    await reviewed(app, me, publish, { post_id: id, social_account_ids: [insta], idempotency_key: key() });
    posts.push(id);
  }
  await syncAnalytics(app.ctx);
  const out = await inline(app, me, best, {});
  assert.equal(out.data.items.length, 5, "at most five items");
  assert.equal(out.data.ranked_by, "views");
  assert.ok(out.data.items.every((i) => i.deliveries.every((d) => d.network === "instagram")));
  assert.ok(out.data.items.every((i) => i.deliveries.every((d) => d.source === "sandbox")));
  // Posts 0 to 3 also went to LinkedIn, which reports no views: their sums miss it, so they are partial.
  for (const i of out.data.items)
    assert.equal(i.coverage, posts.slice(0, 4).includes(i.post_id) ? "partial" : "complete", i.post_id);
  const views = out.data.items.map((i) => i.views);
  assert.deepEqual(
    views,
    [...views].sort((a, b) => b - a),
  );
  assert.deepEqual(out.data.window, { published_from: null, published_to: null });
  assert.equal((await inline(app, me, best, { limit: 2 })).data.items.length, 2);

  // Move one post's publication into the past: a window selects by published_at, not by sync time.
  const old = await app.ctx.db("deliveries").where({ post_id: posts[0], social_account_id: insta }).first();
  await app.ctx
    .db("deliveries")
    .where({ id: old.id })
    .update({ published_at: new Date("2026-01-15T12:00:00Z") });
  const january = await inline(app, me, best, {
    published_from: "2026-01-01T00:00:00Z",
    published_to: "2026-01-31T23:59:59Z",
  });
  assert.deepEqual(
    january.data.items.map((i) => i.deliveries.map((d) => d.delivery_id)),
    [[old.id]],
  );
  assert.equal(january.data.items[0]!.caption_excerpt, "Post number 0");
  const inverted = await toolError(
    inline(app, me, best, { published_from: "2026-02-01T00:00:00Z", published_to: "2026-01-01T00:00:00Z" }),
  );
  assert.equal(inverted.code, "validation_failed");
  assert.deepEqual((await inline(app, me, best, { network: "x" })).data.items, []);
});

test("a post published to several networks is one item: its views summed, each network's inside", async () => {
  const x = await account(app, me, "x", "X");
  const both = await imagePost(app, me, "Everywhere at once");
  await reviewed(app, me, publish, { post_id: both, social_account_ids: [insta, x], idempotency_key: key() });
  await syncAnalytics(app.ctx);
  const deliveries = await app.ctx
    .db("deliveries as d")
    .join("post_metrics as m", "m.delivery_id", "d.id")
    .where("d.post_id", both)
    .select("d.id", "m.views");
  assert.equal(deliveries.length, 2);
  const total = deliveries.reduce((sum: number, d: { views: string }) => sum + Number(d.views), 0);
  // Give the post the most views of all, so that it ranks first whatever the sandbox counted elsewhere.
  await app.ctx
    .db("post_metrics")
    .whereIn(
      "delivery_id",
      deliveries.map((d: { id: string }) => d.id),
    )
    .increment("views", 1_000_000);
  const out = await inline(app, me, best, {});
  const ids = out.data.items.map((i) => i.post_id);
  assert.equal(new Set(ids).size, ids.length, "each post at most once");
  const first = out.data.items[0]!;
  assert.equal(first.post_id, both);
  assert.equal(first.views, total + 2_000_000, "views summed over its deliveries");
  assert.deepEqual(first.deliveries.map((d) => d.network).sort(), ["instagram", "x"]);
  assert.equal(
    first.deliveries.reduce((sum, d) => sum + d.views, 0),
    first.views,
  );
  assert.equal(first.caption_excerpt, "Everywhere at once");
  const onlyX = await inline(app, me, best, { network: "x" });
  assert.equal(onlyX.data.items[0]!.post_id, both);
  assert.deepEqual(
    onlyX.data.items[0]!.deliveries.map((d) => d.network),
    ["x"],
  );
  assert.equal(
    onlyX.data.items[0]!.views,
    onlyX.data.items[0]!.deliveries[0]!.views,
    "only that network counts",
  );
});

test("other users see none of it; foreign posts and accounts are not_found", async () => {
  for (const who of [other, peer]) {
    await app.ctx.db("subscriptions").where({ user_id: who.user_id }).update({ plan: "pro" });
    assert.equal(
      (await toolError(inline(app, who, postAnalytics, { post_id: posts[0]! }))).code,
      "not_found",
    );
    assert.equal(
      (await toolError(inline(app, who, accountAnalytics, { social_account_id: insta }))).code,
      "not_found",
    );
    assert.deepEqual((await inline(app, who, best, {})).data.items, []);
  }
});

test("analytics needs the Pro plan (domain double-check)", async () => {
  const growth = await app.user({ plan: "growth" });
  for (const [h, input] of [
    [accountAnalytics, {}],
    [best, {}],
    [postAnalytics, { post_id: posts[0]! }],
  ] as const) {
    const err = await toolError(inline(app, growth, h as never, input as never));
    assert.equal(err.code, "forbidden");
    assert.match(err.message, /Pro plan/);
  }
});

test("a published delivery without view data yet makes the post partial, not complete, in top content and post analytics", async () => {
  const second = await account(app, me, "instagram", "Second Insta");
  const id = await imagePost(app, me, "Synced once, then published again");
  await reviewed(app, me, publish, { post_id: id, social_account_ids: [insta], idempotency_key: key() });
  await syncAnalytics(app.ctx);
  const synced = await app.ctx.db("deliveries").where({ post_id: id, social_account_id: insta }).first("id");
  await app.ctx.db("post_metrics").where({ delivery_id: synced.id }).increment("views", 5_000_000);
  const before = (await inline(app, me, best, {})).data.items[0]!;
  assert.equal(before.post_id, id);
  assert.equal(before.coverage, "complete", "its only delivery is synced in full");
  assert.equal((await inline(app, me, postAnalytics, { post_id: id })).data.coverage, "complete");

  // Published to a second account after the sync: that delivery has no view data yet.
  await reviewed(app, me, publish, { post_id: id, social_account_ids: [second], idempotency_key: key() });
  const top = (await inline(app, me, best, {})).data.items[0]!;
  assert.equal(top.post_id, id);
  assert.deepEqual(
    top.deliveries.map((d) => d.delivery_id),
    [synced.id],
    "ranked by the views it has",
  );
  assert.equal(top.coverage, "partial", "a delivery's views are missing from the sum");
  const p = await inline(app, me, postAnalytics, { post_id: id });
  assert.equal(p.data.deliveries.length, 2);
  assert.equal(p.data.deliveries.find((d) => d.delivery_id !== synced.id)!.coverage, "none");
  assert.equal(p.data.coverage, "partial");
});
