/**
 * The live Facebook Pages adapter against the provider-shaped fake (test/fakes/facebook.ts) through
 * SOCIAL_HTTP_OVERRIDE: connect (dialog, code, long-lived token, granted permissions, one account per Page
 * with its Page token), text, single photo, 6-photo post (unpublished photos + attached_media), video with
 * processing, the faults (lost answer to the feed post, 429, revoked token), and the metrics of the analytics
 * sync (Page followers, post reactions/comments/shares and insights, nulls for what Facebook does not give).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { facebookAdapter } from "../../../src/providers/social/facebook/adapter.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import {
  type JobMedia,
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkTransientError,
} from "../../../src/providers/social/network.ts";
import { FB_GRAPH_HOST, type FacebookPage, facebookFake } from "../../fakes/facebook.ts";
import { drive, jobFor, saverFor, startMediaHost } from "../../fakes/jobs.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { startFakeNetworks } from "../../fakes/server.ts";

const credentials = { clientId: "fb-app-id", clientSecret: "fb-app-secret" };
const adapter = () =>
  facebookAdapter(credentials, {
    publicBaseUrl: "http://127.0.0.1",
    sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
    now: () => new Date(),
    http,
  });

const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const fb = facebookFake(server, credentials);
const host = await startMediaHost();
const samples = await networkSamples();
const slides: JobMedia[] = [];
for (let i = 1; i <= 6; i++) {
  slides.push(
    await host.add({ name: `slide-${i}.jpg`, file: samples.jpg, kind: "image", mime: "image/jpeg" }),
  );
}
const clip = await host.add({ name: "clip.mp4", file: samples.mp4, kind: "video", mime: "video/mp4" });

const pageJob = (page: FacebookPage, input: { caption?: string; type: string; media: JobMedia[] }) =>
  jobFor({ network: "facebook", networkAccountId: page.id, tokens: page.accessToken, ...input });

describe("connect", () => {
  test("dialog, code exchange, long-lived token, permissions, one account per Page with its token", async () => {
    const user = fb.addUser({ name: "Ana", pages: ["Ana's Bakery", "Ana's Blog"] });
    const a = adapter();
    const redirectUri = "https://app.example.test/settings/social/callback/facebook";
    assert.equal(a.oauth.pickAccounts, true);
    const url = a.oauth.authorizeUrl({ state: "s1", redirectUri });
    assert.match(url, /^https:\/\/www\.facebook\.com\/v\d+\.\d+\/dialog\/oauth\?/);
    const res = await fetch(http.overrideUrl(url), { redirect: "manual" });
    const back = new URL(res.headers.get("location")!);
    assert.equal(back.searchParams.get("state"), "s1");
    const tokens = await a.oauth.exchangeCode({ code: back.searchParams.get("code")!, redirectUri });
    assert.deepEqual(tokens.scopes, [
      "pages_show_list",
      "pages_manage_posts",
      "pages_read_engagement",
      "read_insights",
      "pages_manage_engagement",
    ]);
    const accounts = await a.oauth.accounts(tokens);
    assert.deepEqual(
      accounts.map((x) => [x.networkAccountId, x.handle, x.tokens?.accessToken]),
      user.pages.map((p) => [p.id, p.name, p.accessToken]),
    );
    assert.deepEqual(await a.oauth.refresh(accounts[0]!.tokens!), accounts[0]!.tokens);
  });
});

describe("publish", () => {
  test("a 6-slide carousel: 6 unpublished photos attached to one feed post, with its permalink", async () => {
    const page = fb.addUser({ name: "Bo", pages: ["Bo's Shop"] }).pages[0]!;
    const before = fb.publishes;
    const job = pageJob(page, { caption: "Six photos", type: "carousel", media: slides });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const post = fb.posts.get(result.networkPostId)!;
    assert.equal(result.postUrl, post.permalink_url);
    assert.match(result.postUrl, /^https:\/\/www\.facebook\.com\/\d+\/posts\/\d+$/);
    assert.equal(post.message, "Six photos");
    const photos = (job.delivery.networkIds as { photos: string[] }).photos;
    assert.deepEqual(post.attachments, photos, "six photos in order");
    assert.equal(photos.length, 6);
    for (const id of photos) assert.equal(fb.photos.get(id)!.published, false);
    assert.equal(fb.publishes - before, 1, "one post");
  });

  test("text, one photo, and a video that processes before its permalink", async () => {
    const page = fb.addUser({ name: "Cy", pages: ["Cy"] }).pages[0]!;
    const a = adapter();
    const text = await drive(a.publisher, pageJob(page, { caption: "Just words", type: "text", media: [] }));
    assert.equal(text.result.state, "published");
    const photo = await drive(
      a.publisher,
      pageJob(page, { caption: "One", type: "image", media: [slides[0]!] }),
    );
    assert.equal(photo.result.state, "published");
    if (photo.result.state === "published")
      assert.equal(fb.posts.get(photo.result.networkPostId)!.message, "One");
    fb.processingPolls = 2;
    try {
      const video = await drive(
        a.publisher,
        pageJob(page, { caption: "Clip", type: "video", media: [clip] }),
      );
      assert.deepEqual(video.states, ["processing", "processing", "processing", "published"]);
      if (video.result.state === "published") {
        assert.equal(
          video.result.postUrl,
          `https://www.facebook.com/${page.id}/videos/${video.result.networkPostId}/`,
        );
      }
    } finally {
      fb.processingPolls = 0;
    }
  });
});

describe("faults", () => {
  test("lost answer to the feed post: reconciled from the Page's posts, no second post", async () => {
    const page = fb.addUser({ name: "Di", pages: ["Di"] }).pages[0]!;
    const before = fb.publishes;
    const job = pageJob(page, { caption: "Lost once", type: "carousel", media: slides.slice(0, 2) });
    server.fault({ host: FB_GRAPH_HOST, path: `/${page.id}/feed`, method: "POST" }, { kind: "lost" });
    const a = adapter();
    const save = saverFor(job);
    const err = await a.publisher.step(job, save).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof NetworkTransientError && err.afterCreate);
    const r = await a.publisher.reconcile(job, save);
    assert.equal(r.state, "published");
    const again = await a.publisher.step(job, save);
    assert.equal(again.state, "published");
    assert.equal(fb.publishes - before, 1);
    assert.equal(server.hitsFor(FB_GRAPH_HOST, `/${page.id}/feed`, "POST").length, 1);
  });

  test("a step after a crash during the create looks for the post before creating it again", async () => {
    const page = fb.addUser({ name: "Ed", pages: ["Ed"] }).pages[0]!;
    const before = fb.publishes;
    const job = pageJob(page, { caption: "Crash", type: "text", media: [] });
    server.fault({ host: FB_GRAPH_HOST, path: `/${page.id}/feed`, method: "POST" }, { kind: "lost" });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), NetworkTransientError);
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    assert.equal(fb.publishes - before, 1);
  });

  test("429 with Retry-After and a revoked Page token", async () => {
    const user = fb.addUser({ name: "Fa", pages: ["Fa one", "Fa two"] });
    const other = fb.addUser({ name: "Gi", pages: ["Gi"] }).pages[0]!;
    const page = user.pages[0]!;
    server.fault(
      { host: FB_GRAPH_HOST, path: `/${page.id}/feed`, method: "POST" },
      { kind: "rate_limit", retryAfterSeconds: 12 },
    );
    const job = pageJob(page, { caption: "Wait", type: "text", media: [] });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRateLimitError);
      assert.equal(e.retryAfterSeconds, 12);
      return true;
    });
    // The Page's own rate-limit answer: HTTP 400, code 80001, the wait in X-Business-Use-Case-Usage (minutes).
    server.fault(
      { host: FB_GRAPH_HOST, path: `/${page.id}/feed`, method: "POST" },
      { kind: "network_rate_limit", seconds: 60 },
    );
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRateLimitError);
      assert.equal(e.retryAfterSeconds, 60);
      return true;
    });
    fb.expireUser(user.id);
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkAuthError);
      assert.match(e.message, /Session has expired/);
      return true;
    });
    fb.revokeUser(user.id);
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkAuthError);
      assert.ok(!e.message.includes(page.accessToken));
      return true;
    });
    const ok = await drive(adapter().publisher, pageJob(other, { caption: "fine", type: "text", media: [] }));
    assert.equal(ok.result.state, "published");
  });
});

describe("metrics", () => {
  const grant = ["pages_show_list", "pages_manage_posts", "pages_read_engagement", "read_insights"];
  const accountOf = (page: FacebookPage, scopes = grant) => ({
    ...pageJob(page, { type: "text", media: [] }).account,
    tokens: { accessToken: page.accessToken, scopes },
  });
  const published = async (page: FacebookPage, input: { type: string; media: JobMedia[] }) => {
    const job = pageJob(page, { caption: "Counted", ...input });
    const { result } = await drive(adapter().publisher, job);
    if (result.state !== "published") throw new Error("not published");
    return {
      networkPostId: result.networkPostId,
      networkIds: job.delivery.networkIds,
      type: input.type,
      publishedAt: new Date(),
    };
  };

  test("Page followers; a photo post's reactions, comments, shares, views and reach; saves null", async () => {
    const page = fb.addUser({ name: "Mo", pages: ["Mo Bakery"] }).pages[0]!;
    fb.followers.set(page.id, 812);
    const post = await published(page, { type: "image", media: [slides[0]!] });
    fb.postStats.set(post.networkPostId, { reactions: 40, comments: 6, shares: 3, views: 2200, reach: 1900 });
    const metrics = adapter().metrics!;
    assert.deepEqual(await metrics.account(accountOf(page)), {
      followers: 812,
      views: null,
      likes: null,
      comments: null,
      shares: null,
    });
    assert.deepEqual(await metrics.post(accountOf(page), post), {
      views: 2200,
      reach: 1900,
      likes: 40,
      comments: 6,
      shares: 3,
      saves: null,
    });
  });

  test("a video's counters come from its Page post; no shares is 0, no insights is null", async () => {
    const page = fb.addUser({ name: "Vi", pages: ["Vi Films"] }).pages[0]!;
    const post = await published(page, { type: "video", media: [clip] });
    assert.equal(post.networkPostId, post.networkIds.videoId, "a video delivery keeps the video id");
    const pagePost = fb.videos.get(post.networkPostId)!.postId;
    fb.postStats.set(pagePost, { reactions: 5, comments: 1 });
    assert.deepEqual(await adapter().metrics!.post(accountOf(page), post), {
      views: null,
      reach: null,
      likes: 5,
      comments: 1,
      shares: 0,
      saves: null,
    });
    assert.equal(server.hitsFor(FB_GRAPH_HOST, `/${pagePost}/insights`).length, 1);
  });

  test("without read_insights in the grant: views and reach refused with the permission, the rest read", async () => {
    const page = fb.addUser({ name: "Ol", pages: ["Ol"] }).pages[0]!;
    const post = await published(page, { type: "text", media: [] });
    fb.postStats.set(post.networkPostId, { reactions: 9, comments: 2, shares: 1 });
    const read = await adapter().metrics!.post(accountOf(page, grant.slice(0, 3)), post);
    assert.deepEqual(
      { ...read, refused: undefined },
      { views: null, reach: null, likes: 9, comments: 2, shares: 1, saves: null, refused: undefined },
    );
    assert.deepEqual(
      read.refused?.map((r) => [r.metric, r.permission]),
      [
        ["views", "read_insights"],
        ["reach", "read_insights"],
      ],
    );
    assert.match(read.refused![0]!.reason, /connected without the read_insights permission; reconnect/);
    assert.equal(server.hitsFor(FB_GRAPH_HOST, `/${post.networkPostId}/insights`).length, 0, "nothing asked");
  });

  test("one refused field fails Facebook's whole request: read again part by part, only comments lost", async () => {
    const page = fb.addUser({ name: "Co", pages: ["Co"] }).pages[0]!;
    const post = await published(page, { type: "text", media: [] });
    fb.postStats.set(post.networkPostId, { reactions: 12, comments: 4, shares: 2, views: 300, reach: 250 });
    fb.fieldPermissions.comments = "pages_read_user_content";
    const reads = () => server.hitsFor(FB_GRAPH_HOST, `/${post.networkPostId}`).length;
    const before = reads();
    try {
      const read = await adapter().metrics!.post(accountOf(page), post);
      assert.deepEqual(
        { ...read, refused: undefined },
        { views: 300, reach: 250, likes: 12, comments: null, shares: 2, saves: null, refused: undefined },
      );
      assert.equal(read.refused?.length, 1);
      const [refused] = read.refused!;
      assert.equal(refused!.metric, "comments");
      assert.equal(refused!.permission, "pages_read_user_content", "the permission Facebook named");
      assert.match(
        refused!.reason,
        /\(#10\) This endpoint requires the 'pages_read_user_content' permission/,
      );
      // The whole request, then each field alone.
      assert.equal(reads() - before, 4);
    } finally {
      fb.fieldPermissions.comments = "pages_read_engagement";
    }
  });

  test("an insights metric Facebook refuses (code 100) costs only that metric; no permission named", async () => {
    const page = fb.addUser({ name: "Re", pages: ["Re"] }).pages[0]!;
    const post = await published(page, { type: "text", media: [] });
    fb.postStats.set(post.networkPostId, { reactions: 1, views: 80, reach: 70 });
    fb.refusedInsights.add("post_total_media_view_unique");
    try {
      const read = await adapter().metrics!.post(accountOf(page), post);
      assert.equal(read.views, 80);
      assert.equal(read.reach, null);
      assert.deepEqual(
        read.refused?.map((r) => [r.metric, r.permission]),
        [["reach", undefined]],
      );
      assert.match(
        read.refused![0]!.reason,
        /post_total_media_view_unique: .*The value must be a valid insights metric/,
      );
    } finally {
      fb.refusedInsights.clear();
    }
  });

  test("429 on the post: NetworkRateLimitError with the wait; a revoked Page token: NetworkAuthError", async () => {
    const user = fb.addUser({ name: "Ra", pages: ["Ra"] });
    const page = user.pages[0]!;
    const post = await published(page, { type: "text", media: [] });
    server.fault(
      { host: FB_GRAPH_HOST, path: `/${post.networkPostId}`, method: "GET" },
      { kind: "rate_limit", retryAfterSeconds: 15 },
    );
    await assert.rejects(
      adapter().metrics!.post(accountOf(page), post),
      (e: unknown) => e instanceof NetworkRateLimitError && e.retryAfterSeconds === 15,
    );
    fb.revokeUser(user.id);
    await assert.rejects(adapter().metrics!.account(accountOf(page)), NetworkAuthError);
  });
});
