/**
 * The live Instagram adapter against the provider-shaped fake (test/fakes/instagram.ts) through
 * SOCIAL_HTTP_OVERRIDE: connect (authorize redirect, code exchange, long-lived token, account id beyond
 * 2^53, refresh), publishing (6-slide carousel, single image, Reels, JPEG only), publishing limit, and the
 * faults (crash after the container, lost media_publish answer, 429 with Retry-After, revoked token), an image
 * container's publishing limit read beside its status, and the
 * metrics of the analytics sync (followers_count, media insights, nulls for what Instagram does not give).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { instagramAdapter } from "../../../src/providers/social/instagram/adapter.ts";
import {
  type JobMedia,
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../../../src/providers/social/network.ts";
import { type InstagramFake, IG_GRAPH_HOST, instagramFake } from "../../fakes/instagram.ts";
import { drive, jobFor, type MediaHost, saverFor, startMediaHost } from "../../fakes/jobs.ts";
import { type FakeNetworkServer, startFakeNetworks } from "../../fakes/server.ts";
import { networkSamples } from "../../fakes/samples.ts";

const credentials = { clientId: "ig-app-id", clientSecret: "ig-app-secret" };
const adapter = () =>
  instagramAdapter(credentials, {
    publicBaseUrl: "http://127.0.0.1",
    sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
    now: () => new Date(),
    http,
  });

const server: FakeNetworkServer = await startFakeNetworks();
const http = createSocialHttp(server.url);
const ig: InstagramFake = instagramFake(server, credentials);
const host: MediaHost = await startMediaHost();
const samples = await networkSamples();
const slides: JobMedia[] = [];
for (let i = 1; i <= 6; i++) {
  slides.push(
    await host.add({ name: `slide-${i}.jpg`, file: samples.jpg, kind: "image", mime: "image/jpeg" }),
  );
}
const png = await host.add({ name: "red.png", file: samples.png, kind: "image", mime: "image/png" });
const story = await host.add({
  name: "story.jpg",
  file: samples.storyJpg,
  kind: "image",
  mime: "image/jpeg",
});
const clip = await host.add({
  name: "clip.mp4",
  file: samples.mp4,
  kind: "video",
  mime: "video/mp4",
  durationSeconds: 4,
});
const lowFps = await host.add({
  name: "low-fps.mp4",
  file: samples.lowFpsMp4,
  kind: "video",
  mime: "video/mp4",
  durationSeconds: 4,
});

describe("connect", () => {
  test("authorize redirect, code exchange for a long-lived token, the account id as a string, refresh", async () => {
    const user = ig.addUser({ username: "shop.studio" });
    const a = adapter();
    const redirectUri = "https://app.example.test/settings/social/callback/instagram";
    const url = a.oauth.authorizeUrl({ state: "st-1", redirectUri });
    assert.match(url, /^https:\/\/www\.instagram\.com\/oauth\/authorize\?/);
    assert.equal(
      new URL(url).searchParams.get("scope"),
      "instagram_business_basic,instagram_business_content_publish,instagram_business_manage_insights,instagram_business_manage_comments",
    );
    const res = await fetch(http.overrideUrl(url), { redirect: "manual" });
    assert.equal(res.status, 302);
    const back = new URL(res.headers.get("location")!);
    assert.equal(back.hash, "#_");
    assert.equal(back.searchParams.get("state"), "st-1");
    const tokens = await a.oauth.exchangeCode({ code: back.searchParams.get("code")!, redirectUri });
    assert.ok(tokens.expiresAt && tokens.expiresAt.getTime() > Date.now() + 50 * 86_400_000, "60-day token");
    assert.deepEqual(tokens.scopes, [
      "instagram_business_basic",
      "instagram_business_content_publish",
      "instagram_business_manage_insights",
      "instagram_business_manage_comments",
    ]);
    const accounts = await a.oauth.accounts(tokens);
    assert.equal(accounts.length, 1);
    assert.equal(accounts[0]!.networkAccountId, user.userId, "all digits of the id survive");
    assert.ok(BigInt(user.userId) > BigInt(Number.MAX_SAFE_INTEGER));
    assert.equal(accounts[0]!.handle, "shop.studio");
    const refreshed = await a.oauth.refresh(tokens);
    assert.notEqual(refreshed.accessToken, tokens.accessToken);
    assert.ok(ig.tokenValid(refreshed.accessToken));
    await assert.rejects(
      a.oauth.exchangeCode({ code: back.searchParams.get("code")!, redirectUri }),
      NetworkAuthError,
      "a used code is refused",
    );
  });

  test("a denied consent comes back as error=access_denied", async () => {
    ig.addUser({ username: "denier" });
    ig.denyNext = true;
    const url = adapter().oauth.authorizeUrl({ state: "st-2", redirectUri: "https://app.example.test/cb" });
    const res = await fetch(http.overrideUrl(url), { redirect: "manual" });
    const back = new URL(res.headers.get("location")!);
    assert.equal(back.searchParams.get("error"), "access_denied");
    assert.equal(back.searchParams.get("code"), null);
  });
});

describe("publish", () => {
  test("a 6-slide carousel: 6 child containers, a CAROUSEL parent, status, media_publish, permalink", async () => {
    const user = ig.addUser({ username: "carousel.maker" });
    const before = ig.publishes;
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      caption: "Six slides #launch",
      type: "carousel",
      media: slides,
    });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    assert.match(result.postUrl, /^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/);
    const media = ig.media.get(result.networkPostId)!;
    assert.equal(media.media_type, "CAROUSEL_ALBUM");
    assert.equal(media.caption, "Six slides #launch");
    assert.equal(media.permalink, result.postUrl);
    const ids = job.delivery.networkIds as { children: string[]; container: string };
    assert.equal(ids.children.length, 6);
    assert.deepEqual(media.children, ids.children, "slides in order");
    for (const c of ids.children) assert.equal(ig.containers.get(c)!.isCarouselItem, true);
    assert.equal(ig.containers.get(ids.container)!.mediaType, "CAROUSEL");
    assert.equal(ig.publishes - before, 1);
  });

  test("an image container's publishing limit is read while its status is still on its way, not after", async () => {
    const user = ig.addUser({ username: "two.reads" });
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      caption: "two reads at once",
      type: "image",
      media: [slides[0]!],
    });
    const a = adapter();
    const save = saverFor(job);
    assert.equal((await a.publisher.step(job, save)).state, "processing", "the container is made");
    const container = (job.delivery.networkIds as { container: string }).container;
    server.fault(
      { host: IG_GRAPH_HOST, path: `/${container}`, method: "GET" },
      { kind: "slow", delayMs: 1000 },
    );
    const statusHit = () => server.hitsFor(IG_GRAPH_HOST, `/${container}`, "GET").at(-1);
    const limitHits = () => server.hitsFor(IG_GRAPH_HOST, `/${user.userId}/content_publishing_limit`).length;
    const limitsBefore = limitHits();
    let limitReadDuringStatus = false;
    const stepping = a.publisher.step(job, save);
    for (;;) {
      await new Promise((r) => setTimeout(r, 10));
      const hit = statusHit();
      if (hit && hit.status !== 0) break;
      if (hit && limitHits() > limitsBefore) limitReadDuringStatus = true;
    }
    assert.equal((await stepping).state, "published");
    assert.ok(limitReadDuringStatus, "the limit was asked before the status answered");
    assert.equal(limitHits() - limitsBefore, 1, "one limit read");
  });

  test("a single JPEG image and a Reel", async () => {
    const user = ig.addUser({ username: "single" });
    const a = adapter();
    const image = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      caption: "one",
      type: "image",
      media: [slides[0]!],
    });
    const r1 = await drive(a.publisher, image);
    assert.equal(r1.result.state, "published");
    const reel = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      caption: "a reel",
      type: "video",
      media: [clip],
    });
    const r2 = await drive(a.publisher, reel);
    assert.equal(r2.result.state, "published");
    if (r2.result.state !== "published") return;
    assert.match(r2.result.postUrl, /^https:\/\/www\.instagram\.com\/reel\//);
    const container = ig.containers.get((reel.delivery.networkIds as { container: string }).container)!;
    assert.equal(container.mediaType, "REELS");
  });

  test("a PNG is refused by Instagram: the delivery fails with the network's reason", async () => {
    const user = ig.addUser({ username: "png.user" });
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      type: "image",
      media: [png],
    });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "failed");
    if (result.state === "failed") assert.match(result.reason, /Only JPEG/);
  });

  test("a 10 fps Reel is refused like Instagram refuses it: the container ends in ERROR 2207026; nothing published", async () => {
    const user = ig.addUser({ username: "slow.reel" });
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      type: "video",
      media: [lowFps],
    });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "failed");
    if (result.state === "failed")
      assert.match(result.reason, /10 fps; Instagram Reels take 23 to 60 fps.*2207026/);
    assert.equal(
      ig.media.size > 0 ? [...ig.media.values()].some((m) => m.owner === user.userId) : false,
      false,
    );
  });

  test("a 9:16 feed image (the story format) is refused by Instagram with subcode 2207009; nothing is published", async () => {
    const user = ig.addUser({ username: "story.user" });
    const before = server.counter("instagram.publishes");
    for (const media of [[story], [slides[0]!, story]]) {
      const job = jobFor({
        network: "instagram",
        networkAccountId: user.userId,
        tokens: user.accessToken,
        type: media.length > 1 ? "carousel" : "image",
        media,
      });
      // A refusal (NetworkRejectedError): the engine fails the delivery with this reason.
      await assert.rejects(
        drive(adapter().publisher, job),
        (e: unknown) =>
          e instanceof NetworkRejectedError &&
          /refused the request \(36003\): The submitted image with aspect ratio 0\.5625 cannot be published/.test(
            e.message,
          ),
      );
    }
    assert.equal(server.counter("instagram.publishes"), before);
  });

  test("slow processing: the container is polled until FINISHED", async () => {
    const user = ig.addUser({ username: "slow" });
    ig.processingPolls = 3;
    try {
      const job = jobFor({
        network: "instagram",
        networkAccountId: user.userId,
        tokens: user.accessToken,
        type: "image",
        media: [slides[1]!],
      });
      const { result, states } = await drive(adapter().publisher, job);
      assert.equal(result.state, "published");
      assert.deepEqual(states, ["processing", "processing", "processing", "processing", "published"]);
    } finally {
      ig.processingPolls = 0;
    }
  });

  test("the publishing limit is read live and a used-up quota fails with a clear reason", async () => {
    const user = ig.addUser({ username: "quota" });
    const a = adapter();
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      type: "image",
      media: [slides[2]!],
    });
    assert.deepEqual(await a.publisher.publishingLimit!(job), { used: 0, limit: 100, windowSeconds: 86_400 });
    ig.quotaTotal = 0;
    try {
      const { result } = await drive(a.publisher, job);
      assert.equal(result.state, "failed");
      if (result.state === "failed") assert.match(result.reason, /publishing limit \(0 of 0/);
    } finally {
      ig.quotaTotal = 100;
    }
  });
});

describe("faults", () => {
  test("worker killed after the container is created: a new worker resumes and publishes exactly once", async () => {
    const user = ig.addUser({ username: "crashy" });
    const before = ig.publishes;
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      caption: "resume me",
      type: "carousel",
      media: slides.slice(0, 3),
    });
    const first = await adapter().publisher.step(job, saverFor(job));
    assert.equal(first.state, "processing");
    const saved = structuredClone(job.delivery.networkIds);
    assert.ok(saved.container, "the container id was saved when created");
    // The worker dies here. A new process starts from the saved ids only.
    const resumed = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      caption: "resume me",
      type: "carousel",
      media: slides.slice(0, 3),
    });
    resumed.delivery.networkIds = saved;
    resumed.delivery.state = "processing";
    const { result } = await drive(adapter().publisher, resumed);
    assert.equal(result.state, "published");
    assert.equal(ig.publishes - before, 1, "exactly one publish");
    const creates = server.hitsFor(IG_GRAPH_HOST, `/${user.userId}/media`, "POST");
    assert.equal(creates.length, 4, "3 children and 1 parent, none created again");
  });

  test("lost answer to media_publish: outcome unknown, reconciled from the container, never published twice", async () => {
    const user = ig.addUser({ username: "lost" });
    const before = ig.publishes;
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      caption: "lost answer",
      type: "carousel",
      media: slides.slice(0, 2),
    });
    const a = adapter();
    const save = saverFor(job);
    assert.equal((await a.publisher.step(job, save)).state, "processing");
    server.fault(
      { host: IG_GRAPH_HOST, path: `/${user.userId}/media_publish`, method: "POST" },
      { kind: "lost" },
    );
    const err = await a.publisher.step(job, save).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof NetworkTransientError && err.afterCreate, "afterCreate transient error");
    assert.equal(ig.publishes - before, 1, "the fake did the work");
    const reconciled = await a.publisher.reconcile(job, save);
    assert.equal(reconciled.state, "published");
    if (reconciled.state !== "published") return;
    assert.equal(ig.media.get(reconciled.networkPostId)!.caption, "lost answer");
    // Even a plain step after that (e.g. a retry) does not publish again.
    const again = await a.publisher.step(job, save);
    assert.equal(again.state, "published");
    assert.equal(ig.publishes - before, 1, "still exactly one publish");
    assert.equal(server.hitsFor(IG_GRAPH_HOST, `/${user.userId}/media_publish`).length, 1);
  });

  test("429 with Retry-After: a rate limit error with the wait, nothing created, the next step proceeds", async () => {
    const user = ig.addUser({ username: "limited" });
    server.fault(
      { host: IG_GRAPH_HOST, path: `/${user.userId}/media`, method: "POST" },
      { kind: "rate_limit", retryAfterSeconds: 7 },
    );
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      type: "image",
      media: [slides[3]!],
    });
    const a = adapter();
    await assert.rejects(a.publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRateLimitError);
      assert.equal(e.retryAfterSeconds, 7);
      return true;
    });
    assert.deepEqual(job.delivery.networkIds, {}, "nothing saved");
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
  });

  test("an expired token (code 190, subcode 463): NetworkAuthError naming the expiry, the token not in it", async () => {
    const user = ig.addUser({ username: "expired" });
    ig.expireUser(user.userId);
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: user.accessToken,
      type: "image",
      media: [slides[3]!],
    });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkAuthError);
      assert.match(e.message, /Session has expired/);
      assert.ok(!e.message.includes(user.accessToken));
      return true;
    });
  });

  test("revoked token (code 190): NetworkAuthError with a safe message; another account still publishes", async () => {
    const revoked = ig.addUser({ username: "revoked" });
    const other = ig.addUser({ username: "other" });
    ig.revokeUser(revoked.userId);
    const a = adapter();
    const job = jobFor({
      network: "instagram",
      networkAccountId: revoked.userId,
      tokens: revoked.accessToken,
      type: "image",
      media: [slides[4]!],
    });
    await assert.rejects(a.publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkAuthError);
      assert.match(e.message, /session has been invalidated/);
      assert.ok(!e.message.includes(revoked.accessToken));
      return true;
    });
    await assert.rejects(a.oauth.refresh({ accessToken: revoked.accessToken, scopes: [] }), NetworkAuthError);
    const ok = jobFor({
      network: "instagram",
      networkAccountId: other.userId,
      tokens: other.accessToken,
      type: "image",
      media: [slides[5]!],
    });
    assert.equal((await drive(a.publisher, ok)).result.state, "published");
  });
});

describe("metrics", () => {
  const insightsScopes = {
    scopes: [
      "instagram_business_basic",
      "instagram_business_content_publish",
      "instagram_business_manage_insights",
    ],
  };
  /** Publishes one image for `user` and returns the job (its account) and the media id. */
  const publishedImage = async (user: { userId: string; accessToken: string }, scopes = insightsScopes) => {
    const job = jobFor({
      network: "instagram",
      networkAccountId: user.userId,
      tokens: { accessToken: user.accessToken, ...scopes },
      type: "image",
      media: [slides[0]!],
    });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") throw new Error("not published");
    const post = {
      networkPostId: result.networkPostId,
      networkIds: job.delivery.networkIds,
      type: "image",
      publishedAt: new Date(),
    };
    return { account: job.account, post };
  };

  test("followers_count, media insights with exact numbers; what Instagram does not give is null", async () => {
    const user = ig.addUser({ username: "metrics.shop" });
    ig.followers.set(user.userId, 4321);
    const { account, post } = await publishedImage(user);
    ig.insights.set(post.networkPostId, { views: 1500, reach: 1200, likes: 87, comments: 9, shares: 4 });
    const metrics = adapter().metrics!;
    assert.deepEqual(await metrics.account(account), {
      followers: 4321,
      views: null,
      likes: null,
      comments: null,
      shares: null,
    });
    assert.deepEqual(
      await metrics.post(account, post),
      { views: 1500, reach: 1200, likes: 87, comments: 9, shares: 4, saves: null },
      "`saved` not in Instagram's answer: null, not 0",
    );
    assert.equal(server.hitsFor(IG_GRAPH_HOST, `/${post.networkPostId}/insights`).length, 1);
    ig.insights.set(post.networkPostId, { views: 0, reach: 0, likes: 0, comments: 0, shares: 0, saved: 0 });
    assert.deepEqual(await metrics.post(account, post), {
      views: 0,
      reach: 0,
      likes: 0,
      comments: 0,
      shares: 0,
      saves: 0,
    });
  });

  test("too few viewers: every counter null; without the insights permission: a reconnect reason, no call", async () => {
    const user = ig.addUser({ username: "quiet.shop" });
    const { account, post } = await publishedImage(user);
    ig.insights.set(post.networkPostId, "not_enough_viewers");
    const metrics = adapter().metrics!;
    assert.deepEqual(await metrics.post(account, post), {
      views: null,
      reach: null,
      likes: null,
      comments: null,
      shares: null,
      saves: null,
    });
    const before = server.hitsFor(IG_GRAPH_HOST, `/${post.networkPostId}/insights`).length;
    const old = { ...account, tokens: { ...account.tokens, scopes: ["instagram_business_basic"] } };
    await assert.rejects(metrics.post(old, post), (e: unknown) => {
      assert.ok(e instanceof NetworkRejectedError && !(e instanceof NetworkAuthError));
      assert.match(e.message, /instagram_business_manage_insights.*reconnect/);
      return true;
    });
    assert.equal(server.hitsFor(IG_GRAPH_HOST, `/${post.networkPostId}/insights`).length, before);
  });

  test("Instagram's own rate-limit answer (400, code 80002, X-Business-Use-Case-Usage): the wait in its minutes", async () => {
    const user = ig.addUser({ username: "throttled.shop" });
    const { account, post } = await publishedImage(user);
    server.fault(
      { host: IG_GRAPH_HOST, path: `/${post.networkPostId}/insights` },
      { kind: "network_rate_limit", seconds: 150 },
    );
    await assert.rejects(
      adapter().metrics!.post(account, post),
      (e: unknown) => e instanceof NetworkRateLimitError && e.retryAfterSeconds === 180,
    );
  });

  test("429 on insights: NetworkRateLimitError with the wait; a revoked token: NetworkAuthError", async () => {
    const user = ig.addUser({ username: "busy.shop" });
    const { account, post } = await publishedImage(user);
    server.fault(
      { host: IG_GRAPH_HOST, path: `/${post.networkPostId}/insights` },
      { kind: "rate_limit", retryAfterSeconds: 30 },
    );
    const metrics = adapter().metrics!;
    await assert.rejects(
      metrics.post(account, post),
      (e: unknown) => e instanceof NetworkRateLimitError && e.retryAfterSeconds === 30,
    );
    ig.revokeUser(user.userId);
    await assert.rejects(metrics.account(account), NetworkAuthError);
  });
});
