/**
 * Publishing for real through the delivery engine (src/domain/social/engine.ts) and the live adapters,
 * against the provider-shaped fakes (test/fakes/) reached through SOCIAL_HTTP_OVERRIDE, with the service's
 * signed public media URLs pulled by the Instagram fake over HTTP. `publishPost` is what the publish_post
 * tool runs once approved (service spec 3.1).
 * - an approved 6-slide carousel to Instagram and Facebook -> published with the fakes' permalinks;
 * - the worker dies after the Instagram container is created -> the next pass reconciles, publishes once;
 * - the answer to media_publish is lost -> outcome_unknown, reconciled, no second publish;
 * - a 429 with Retry-After is waited out;
 * - a revoked token -> that account needs_reconnect, its delivery failed with a clear reason, the other
 *   account publishes and stays connected.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { createMediaAsset } from "../../src/domain/media/media.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { advanceDeliveries, runDeliveryStep } from "../../src/domain/social/engine.ts";
import { publishPost } from "../../src/domain/social/publish.ts";
import { FACEBOOK_CAPABILITIES } from "../../src/providers/social/facebook/oauth.ts";
import { INSTAGRAM_CAPABILITIES } from "../../src/providers/social/instagram/oauth.ts";
import { FB_GRAPH_HOST, facebookFake } from "../fakes/facebook.ts";
import { IG_GRAPH_HOST, type InstagramUser, instagramFake } from "../fakes/instagram.ts";
import { networkSamples } from "../fakes/samples.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";

const server = await startFakeNetworks();
const ig = instagramFake(server, FAKE_APPS.instagram);
const fb = facebookFake(server, FAKE_APPS.facebook);
// The engine's waits (a network's next poll, Retry-After) pass at once on this clock and move it.
const clock = new TestClock({ skipWaits: true });
const app = await startTestApp({
  clock,
  env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["instagram", "facebook"]) },
});
const samples = await networkSamples();
const alice = await app.user({ workspace: "Alice Studio" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;

async function connectInstagram(user: InstagramUser): Promise<string> {
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "instagram",
    mode: "live",
    account: { networkAccountId: user.userId, handle: user.username, capabilities: INSTAGRAM_CAPABILITIES },
    tokens: {
      accessToken: user.accessToken,
      expiresAt: new Date(Date.now() + 50 * 86_400_000),
      scopes: ["instagram_business_basic", "instagram_business_content_publish"],
    },
    now: new Date(),
  });
  return account.social_account_id;
}

async function connectPage(name: string): Promise<{ accountId: string; userId: string }> {
  const user = fb.addUser({ name, pages: [name] });
  const page = user.pages[0]!;
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "facebook",
    mode: "live",
    account: {
      networkAccountId: page.id,
      handle: page.name,
      capabilities: FACEBOOK_CAPABILITIES,
      tokens: { accessToken: page.accessToken, scopes: ["pages_show_list", "pages_manage_posts"] },
    },
    tokens: { accessToken: "user-token-not-used", scopes: [] },
    now: new Date(),
  });
  return { accountId: account.social_account_id, userId: user.id };
}

/** An approved carousel of `slides` ready JPEG slides (stored in the service's media storage). */
async function approvedCarousel(slides: number, caption: string): Promise<string> {
  const bytes = await readFile(samples.jpg);
  const [post] = await db("posts")
    .insert({ ...owner_(), type: "carousel", status: "approved", caption })
    .returning("id");
  for (let i = 0; i < slides; i++) {
    const key = app.ctx.providers.storage.newKey("jpg");
    await app.ctx.providers.storage.putBytes(key, bytes);
    const asset = await createMediaAsset(db, owner, {
      kind: "image",
      mimeType: "image/jpeg",
      bytes: bytes.length,
      width: 1080,
      height: 1350,
      storageKey: key,
      source: "generated",
    });
    await db("carousel_slides").insert({
      post_id: post.id,
      position: i + 1,
      status: "ready",
      image_asset_id: asset.asset_id,
    });
  }
  return post.id;
}

function owner_() {
  return { user_id: owner.userId, workspace_id: owner.workspaceId };
}

async function deliveryOf(postId: string, accountId: string) {
  return db("deliveries").where({ post_id: postId, social_account_id: accountId }).first();
}

test("an approved 6-slide carousel to Instagram and Facebook: published with the networks' permalinks", async () => {
  const igUser = ig.addUser({ username: "alice.studio" });
  const igAccount = await connectInstagram(igUser);
  const { accountId: fbAccount } = await connectPage("Alice Studio Page");
  const postId = await approvedCarousel(6, "Six slides for launch day");
  const igBefore = ig.publishes;
  const fbBefore = fb.publishes;
  const result = await publishPost(
    app.ctx,
    owner,
    { post_id: postId, social_account_ids: [igAccount, fbAccount] },
    undefined,
  );
  await advanceDeliveries(
    app.ctx,
    result.deliveries.map((d) => d.delivery_id),
    { budgetSeconds: 60 },
  );
  const igDelivery = await deliveryOf(postId, igAccount);
  const fbDelivery = await deliveryOf(postId, fbAccount);
  assert.equal(igDelivery.status, "published", igDelivery.error ?? "");
  assert.equal(fbDelivery.status, "published", fbDelivery.error ?? "");
  const media = [...ig.media.values()].find((m) => m.permalink === igDelivery.post_url)!;
  assert.ok(media, "the Instagram delivery's post_url is the fake's permalink");
  assert.equal(media.media_type, "CAROUSEL_ALBUM");
  assert.equal(media.children.length, 6);
  const fbPost = [...fb.posts.values()].find((p) => p.permalink_url === fbDelivery.post_url)!;
  assert.ok(fbPost, "the Facebook delivery's post_url is the fake's permalink");
  assert.equal(fbPost.attachments.length, 6);
  assert.equal(ig.publishes - igBefore, 1);
  assert.equal(fb.publishes - fbBefore, 1);
  assert.equal((await db("posts").where({ id: postId }).first()).status, "published");
});

test("worker killed after the Instagram container is created: the next pass reconciles and publishes once", async () => {
  const igUser = ig.addUser({ username: "crash.test" });
  const account = await connectInstagram(igUser);
  const postId = await approvedCarousel(3, "Crash after container");
  const before = ig.publishes;
  await db.transaction(async (trx) => {
    await trx("deliveries").insert({
      ...owner_(),
      post_id: postId,
      social_account_id: account,
      status: "pending",
    });
  });
  const delivery = await deliveryOf(postId, account);
  assert.equal(await runDeliveryStep(app.ctx, delivery.id), "processing");
  const saved = (await deliveryOf(postId, account)).network_ids;
  assert.ok(saved.container, "the container id was saved");
  // The next step's worker dies mid-step: it leaves step_started_at set and its lease runs out.
  await db("deliveries")
    .where({ id: delivery.id })
    .update({
      step_started_at: new Date(),
      locked_until: new Date(Date.now() - 1000),
      next_attempt_at: null,
    });
  await advanceDeliveries(app.ctx, [delivery.id], { budgetSeconds: 30 });
  const done = await deliveryOf(postId, account);
  assert.equal(done.status, "published", done.error ?? "");
  assert.equal(ig.publishes - before, 1, "exactly one publish");
  assert.equal(
    server.hitsFor(IG_GRAPH_HOST, `/${igUser.userId}/media`, "POST").length,
    4,
    "no container again",
  );
});

test("lost answer to media_publish: outcome_unknown, reconciled, no second publish", async () => {
  const igUser = ig.addUser({ username: "lost.answer" });
  const account = await connectInstagram(igUser);
  const postId = await approvedCarousel(2, "Lost publish answer");
  const before = ig.publishes;
  server.fault(
    { host: IG_GRAPH_HOST, path: `/${igUser.userId}/media_publish`, method: "POST" },
    { kind: "lost" },
  );
  const result = await publishPost(
    app.ctx,
    owner,
    { post_id: postId, social_account_ids: [account] },
    undefined,
  );
  await advanceDeliveries(app.ctx, [result.deliveries[0]!.delivery_id], { budgetSeconds: 60 });
  const done = await deliveryOf(postId, account);
  assert.equal(done.status, "published", done.error ?? "");
  assert.equal(ig.publishes - before, 1);
  assert.equal(
    server.hitsFor(IG_GRAPH_HOST, `/${igUser.userId}/media_publish`).length,
    1,
    "publish sent once",
  );
  assert.equal(ig.media.get(done.network_ids.mediaId)!.permalink, done.post_url);
});

test("429 with Retry-After is waited out", async () => {
  const { accountId } = await connectPage("Rate Limited Page");
  const page = [...fb.users.values()].flatMap((u) => u.pages).find((p) => p.name === "Rate Limited Page")!;
  const postId = await approvedCarousel(2, "After the wait");
  server.fault(
    { host: FB_GRAPH_HOST, path: `/${page.id}/photos`, method: "POST" },
    { kind: "rate_limit", retryAfterSeconds: 2 },
  );
  const started = clock.now().getTime();
  const result = await publishPost(
    app.ctx,
    owner,
    { post_id: postId, social_account_ids: [accountId] },
    undefined,
  );
  await advanceDeliveries(app.ctx, [result.deliveries[0]!.delivery_id], { budgetSeconds: 60 });
  const done = await deliveryOf(postId, accountId);
  assert.equal(done.status, "published", done.error ?? "");
  assert.ok(clock.now().getTime() - started >= 2000, "the Retry-After wait was honoured");
  const photoCalls = server.hitsFor(FB_GRAPH_HOST, `/${page.id}/photos`, "POST");
  assert.deepEqual(
    photoCalls.map((h) => h.status),
    [429, 200, 200],
  );
});

test("revoked token: that account needs_reconnect and its delivery fails with a clear reason; the other publishes", async () => {
  const revoked = ig.addUser({ username: "revoked.one" });
  const fine = ig.addUser({ username: "fine.one" });
  const revokedAccount = await connectInstagram(revoked);
  const fineAccount = await connectInstagram(fine);
  ig.revokeUser(revoked.userId);
  const postId = await approvedCarousel(2, "Revoked and fine");
  const result = await publishPost(
    app.ctx,
    owner,
    { post_id: postId, social_account_ids: [revokedAccount, fineAccount] },
    undefined,
  );
  await advanceDeliveries(
    app.ctx,
    result.deliveries.map((d) => d.delivery_id),
    { budgetSeconds: 60 },
  );
  const bad = await deliveryOf(postId, revokedAccount);
  assert.equal(bad.status, "failed");
  assert.match(bad.error, /credentials/);
  assert.ok(!String(bad.error).includes(revoked.accessToken));
  assert.equal((await db("social_accounts").where({ id: revokedAccount }).first()).status, "needs_reconnect");
  const good = await deliveryOf(postId, fineAccount);
  assert.equal(good.status, "published", good.error ?? "");
  assert.equal((await db("social_accounts").where({ id: fineAccount }).first()).status, "connected");
});
