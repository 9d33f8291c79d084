/**
 * The live TikTok adapter against the provider-shaped fake (test/fakes/tiktok.ts) through
 * SOCIAL_HTTP_OVERRIDE: connect (client_key, 24 h token, refresh), creator_info, video by FILE_UPLOAD chunks
 * with status/fetch polling until PUBLISH_COMPLETE and the public id arriving later, photo posts by
 * PULL_FROM_URL (JPEG accepted, PNG refused), the chunk rules, the review options, the faults, and the
 * metrics of the analytics sync (user.info.stats, video/query by the public id, nulls for what TikTok does
 * not give).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import {
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
  type TokenSet,
} from "../../../src/providers/social/network.ts";
import { tiktokAdapter } from "../../../src/providers/social/tiktok/adapter.ts";
import { chunkPlan, chunkRange } from "../../../src/providers/social/tiktok/chunks.ts";
import { queryCreatorInfo } from "../../../src/providers/social/tiktok/creator-info.ts";
import {
  BRANDED_NOT_PRIVATE,
  type ReviewChoice,
  validateReviewChoice,
} from "../../../src/providers/social/tiktok/options.ts";
import { drive, jobFor, saverFor, startMediaHost } from "../../fakes/jobs.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import {
  chunkRuleViolation,
  MB,
  type TikTokCreator,
  TT_API_HOST,
  TT_UPLOAD_HOST,
  tiktokFake,
} from "../../fakes/tiktok.ts";

const credentials = { clientId: "tt-client-key", clientSecret: "tt-secret" };
const adapter = () =>
  tiktokAdapter(credentials, {
    publicBaseUrl: "http://127.0.0.1",
    sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
    now: () => new Date(),
    http,
  });

const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const tt = tiktokFake(server, { clientKey: credentials.clientId, clientSecret: credentials.clientSecret });
const host = await startMediaHost();
const samples = await networkSamples();
const clip = await host.add({
  name: "clip.mp4",
  file: samples.mp4,
  kind: "video",
  mime: "video/mp4",
  durationSeconds: 4,
});
const clipBytes = await readFile(samples.mp4);
const lowFps = await host.add({
  name: "low-fps.mp4",
  file: samples.lowFpsMp4,
  kind: "video",
  mime: "video/mp4",
  durationSeconds: 4,
});
// The sample MP4 followed by padding: 25 MB, so the upload goes in 2 chunks (10 MB + 15 MB).
const big = await host.add({
  name: "big.mp4",
  bytes: Buffer.concat([clipBytes, Buffer.alloc(25 * MB - clipBytes.length)]),
  kind: "video",
  mime: "video/mp4",
});
const photos = [
  await host.add({ name: "p1.jpg", file: samples.jpg, kind: "image", mime: "image/jpeg" }),
  await host.add({ name: "p2.jpg", file: samples.jpg, kind: "image", mime: "image/jpeg" }),
];
const png = await host.add({ name: "p.png", file: samples.png, kind: "image", mime: "image/png" });
// The media host's URLs are the app's verified URL prefix (TikTok pulls photos only from one).
tt.verifiedUrlPrefixes = [`${host.url}/`];

const publicOptions = {
  privacy_level: "PUBLIC_TO_EVERYONE",
  disable_comment: true,
  disable_duet: true,
  disable_stitch: true,
  brand_content_toggle: false,
  brand_organic_toggle: false,
  title: "Our new mug #coffee",
};

const tokensOf = (c: TikTokCreator): TokenSet => ({
  accessToken: c.accessToken,
  refreshToken: c.refreshToken,
  scopes: ["user.info.basic", "user.info.profile", "video.publish"],
});

const ttJob = (
  c: TikTokCreator,
  input: { type: string; media: typeof photos; options?: Record<string, unknown> },
) => {
  const job = jobFor({
    network: "tiktok",
    networkAccountId: c.openId,
    handle: c.username,
    tokens: tokensOf(c),
    caption: "ignored: the review title is posted",
    ...input,
  });
  job.account.metadata = { username: c.username };
  return job;
};

describe("connect", () => {
  test("authorize with client_key, code exchange, 24 h token with refresh, creator account, refresh", async () => {
    const c = tt.addCreator({ username: "mugs.co", nickname: "Mugs & Co" });
    const a = adapter();
    const redirectUri = "https://app.example.test/settings/social/callback/tiktok";
    const url = a.oauth.authorizeUrl({ state: "s", redirectUri });
    assert.equal(new URL(url).searchParams.get("client_key"), "tt-client-key");
    const res = await fetch(http.overrideUrl(url), { redirect: "manual" });
    const back = new URL(res.headers.get("location")!);
    const tokens = await a.oauth.exchangeCode({ code: back.searchParams.get("code")!, redirectUri });
    assert.ok(tokens.refreshToken);
    const hours = (tokens.expiresAt!.getTime() - Date.now()) / 3_600_000;
    assert.ok(hours > 23 && hours <= 24, "24 h access token");
    assert.ok(tokens.refreshExpiresAt!.getTime() > Date.now() + 300 * 86_400_000);
    assert.deepEqual(tokens.scopes, [
      "user.info.basic",
      "user.info.profile",
      "user.info.stats",
      "video.list",
      "video.publish",
    ]);
    const [account] = await a.oauth.accounts(tokens);
    assert.equal(account!.networkAccountId, c.openId);
    assert.equal(account!.handle, "mugs.co");
    assert.equal(account!.displayName, "Mugs & Co");
    const next = await a.oauth.refresh(tokens);
    assert.notEqual(next.accessToken, tokens.accessToken);
    assert.notEqual(next.refreshToken, tokens.refreshToken);
    await assert.rejects(a.oauth.exchangeCode({ code: "wrong", redirectUri }), NetworkAuthError);
  });

  test("creator_info fresh: options, and 'cannot post now' as a reason", async () => {
    const c = tt.addCreator({
      nickname: "Nick",
      privacyLevelOptions: ["MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
      duetDisabled: true,
      maxVideoPostDurationSec: 60,
    });
    const r = await queryCreatorInfo(http, c.accessToken);
    assert.equal(r.canPost, true);
    if (r.canPost) {
      assert.equal(r.info.nickname, "Nick");
      assert.deepEqual(r.info.privacyLevelOptions, ["MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"]);
      assert.equal(r.info.duetDisabled, true);
      assert.equal(r.info.maxVideoPostDurationSec, 60);
    }
    c.cannotPost = "spam_risk_too_many_posts";
    const no = await queryCreatorInfo(http, c.accessToken);
    assert.equal(no.canPost, false);
    if (!no.canPost) assert.match(no.reason, /daily posting limit/);
    tt.revokeCreator(c.openId);
    await assert.rejects(queryCreatorInfo(http, c.accessToken), NetworkAuthError);
  });
});

describe("publish", () => {
  test("a video by FILE_UPLOAD, polled until PUBLISH_COMPLETE, the public id arriving later", async () => {
    const c = tt.addCreator({ username: "vid" });
    const before = tt.published;
    const job = ttJob(c, { type: "video", media: [clip], options: publicOptions });
    const { result, states } = await drive(adapter().publisher, job);
    // init, upload, PROCESSING_UPLOAD (1 poll), PUBLISH_COMPLETE without the id (2 polls), then the id.
    assert.deepEqual(states, [
      "uploading",
      "processing",
      "processing",
      "processing",
      "processing",
      "published",
    ]);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const publish = tt.publishes.get((job.delivery.networkIds as { publishId: string }).publishId)!;
    assert.equal(result.networkPostId, publish.postId, "all 19 digits of the int64 id");
    assert.equal(result.postUrl, `https://www.tiktok.com/@vid/video/${publish.postId}`);
    assert.equal(publish.postInfo.privacy_level, "PUBLIC_TO_EVERYONE");
    assert.equal(publish.postInfo.title, "Our new mug #coffee");
    assert.equal(publish.postInfo.disable_duet, true);
    const puts = server.hitsFor(TT_UPLOAD_HOST, "/video/", "PUT");
    assert.equal(puts.at(-1)!.status, 201);
    assert.equal(tt.published - before, 1);
  });

  test("a 25 MB video goes in 2 chunks with Content-Range as documented", async () => {
    const c = tt.addCreator({ username: "big" });
    const putsBefore = server.hitsFor(TT_UPLOAD_HOST, "/video/", "PUT").length;
    const job = ttJob(c, { type: "video", media: [big], options: publicOptions });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    const puts = server.hitsFor(TT_UPLOAD_HOST, "/video/", "PUT").slice(putsBefore);
    assert.deepEqual(
      puts.map((p) => p.status),
      [206, 201],
    );
    assert.deepEqual(job.delivery.networkIds.totalChunkCount, 2);
  });

  test("a 10 fps video fails like TikTok fails it: frame_rate_check_failed after the upload, nothing posted", async () => {
    const c = tt.addCreator({ username: "slow" });
    const before = tt.published;
    const { result } = await drive(
      adapter().publisher,
      ttJob(c, { type: "video", media: [lowFps], options: publicOptions }),
    );
    assert.equal(result.state, "failed");
    if (result.state === "failed") assert.match(result.reason, /frame_rate_check_failed/);
    assert.equal(tt.published, before);
  });

  test("photos by PULL_FROM_URL: JPEG published at /photo/, PNG failed with TikTok's reason", async () => {
    const c = tt.addCreator({ username: "pics" });
    const ok = await drive(
      adapter().publisher,
      ttJob(c, { type: "carousel", media: photos, options: publicOptions }),
    );
    assert.equal(ok.result.state, "published");
    if (ok.result.state === "published")
      assert.match(ok.result.postUrl, /^https:\/\/www\.tiktok\.com\/@pics\/photo\/\d{19}$/);
    const bad = await drive(
      adapter().publisher,
      ttJob(c, { type: "image", media: [png], options: publicOptions }),
    );
    assert.equal(bad.result.state, "failed");
    if (bad.result.state === "failed") assert.match(bad.result.reason, /file_format_check_failed/);
  });

  test("a photo pull from a URL prefix the app has not verified fails naming the prefix; nothing is posted", async () => {
    const c = tt.addCreator({ username: "unverified" });
    const before = tt.published;
    tt.verifiedUrlPrefixes = ["https://cdn.example.com/media/"];
    try {
      const { result } = await drive(
        adapter().publisher,
        ttJob(c, { type: "carousel", media: photos, options: publicOptions }),
      );
      assert.equal(result.state, "failed");
      if (result.state === "failed")
        assert.equal(
          result.reason,
          `TikTok refused to pull the photos (url_ownership_unverified): the URL prefix ${host.url}/ is not verified for this TikTok app. Verify it in the TikTok developer portal (Content Posting API, URL properties), then publish again.`,
        );
      assert.equal(
        tt.publishes.size > 0 && [...tt.publishes.values()].some((p) => p.openId === c.openId),
        false,
      );
      assert.equal(tt.published, before);
    } finally {
      tt.verifiedUrlPrefixes = [`${host.url}/`];
    }
  });

  test("SELF_ONLY posts never get a public id: published at the creator's profile", async () => {
    const c = tt.addCreator({ username: "private.me" });
    const job = ttJob(c, {
      type: "video",
      media: [clip],
      options: { ...publicOptions, privacy_level: "SELF_ONLY" },
    });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state === "published") {
      assert.equal(result.postUrl, "https://www.tiktok.com/@private.me");
      assert.equal(result.postUrlKind, "profile", "the URL is said to be the profile, not the post");
    }
  });

  test("no review options: failed, pointing at /review; a privacy level the creator lacks is refused", async () => {
    const c = tt.addCreator({ privacyLevelOptions: ["SELF_ONLY"] });
    const none = await drive(adapter().publisher, ttJob(c, { type: "video", media: [clip] }));
    assert.equal(none.result.state, "failed");
    if (none.result.state === "failed") assert.match(none.result.reason, /\/review/);
    const job = ttJob(c, { type: "video", media: [clip], options: publicOptions });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRejectedError);
      assert.match(e.message, /privacy_level_option_mismatch/);
      return true;
    });
  });
});

describe("faults", () => {
  test("a lost answer to video/init: reconcile says not created (no upload, nothing can post), the retry posts once", async () => {
    const c = tt.addCreator({ username: "lost" });
    const before = tt.published;
    const job = ttJob(c, { type: "video", media: [clip], options: publicOptions });
    server.fault(
      { host: TT_API_HOST, path: "/v2/post/publish/video/init/", method: "POST" },
      { kind: "lost" },
    );
    const a = adapter();
    const err = await a.publisher.step(job, saverFor(job)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof NetworkTransientError && err.afterCreate);
    assert.deepEqual(await a.publisher.reconcile(job, saverFor(job)), { state: "not_created" });
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    assert.equal(tt.published - before, 1);
  });

  test("a lost status answer after upload: reconcile reads status/fetch", async () => {
    const c = tt.addCreator({ username: "st" });
    const job = ttJob(c, { type: "video", media: [clip], options: publicOptions });
    const a = adapter();
    const save = saverFor(job);
    await a.publisher.step(job, save);
    await a.publisher.step(job, save);
    let r = await a.publisher.reconcile(job, save);
    for (let i = 0; i < 5 && r.state === "processing"; i++) r = await a.publisher.reconcile(job, save);
    assert.equal(r.state, "published");
  });

  test("a 429 on init limits only the account's posts not started yet; one on status/fetch every call", async () => {
    const c = tt.addCreator({ username: "rli" });
    const job = ttJob(c, { type: "video", media: [clip], options: publicOptions });
    const a = adapter();
    const save = saverFor(job);
    const tooMany = { data: {}, error: { code: "rate_limit_exceeded", message: "slow down", log_id: "x" } };
    server.fault(
      { host: TT_API_HOST, path: "/v2/post/publish/video/init/", method: "POST" },
      { kind: "status", status: 429, body: tooMany }, // no header says when (the rate-limit page)
    );
    const init = await a.publisher.step(job, save).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(init instanceof NetworkRateLimitError, String(init));
    assert.equal(init.startsOnly, true);
    assert.equal(init.scope, "token");
    assert.equal(init.retryAfterSeconds, 60, "a minute: the init limit's window");
    await a.publisher.step(job, save);
    await a.publisher.step(job, save);
    server.fault(
      { host: TT_API_HOST, path: "/v2/post/publish/status/fetch/" },
      { kind: "status", status: 429, body: tooMany },
    );
    const poll = await a.publisher.step(job, save).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(poll instanceof NetworkRateLimitError, String(poll));
    assert.equal(poll.startsOnly, false);
  });

  test("429 with Retry-After on status/fetch, and a revoked token", async () => {
    const c = tt.addCreator({ username: "rl" });
    const job = ttJob(c, { type: "video", media: [clip], options: publicOptions });
    const a = adapter();
    const save = saverFor(job);
    await a.publisher.step(job, save);
    await a.publisher.step(job, save);
    server.fault(
      { host: TT_API_HOST, path: "/v2/post/publish/status/fetch/" },
      {
        kind: "rate_limit",
        retryAfterSeconds: 9,
        body: { data: {}, error: { code: "rate_limit_exceeded", message: "slow down", log_id: "x" } },
      },
    );
    await assert.rejects(
      a.publisher.step(job, save),
      (e: unknown) => (e as { retryAfterSeconds?: number }).retryAfterSeconds === 9,
    );
    tt.revokeCreator(c.openId);
    await assert.rejects(a.publisher.step(job, save), NetworkAuthError);
    await assert.rejects(a.oauth.refresh(tokensOf(c)), NetworkAuthError);
  });
});

describe("chunk plan", () => {
  test("follows TikTok's media transfer rules (checked by the fake's rule function)", () => {
    for (const size of [
      1,
      4 * MB,
      5 * MB,
      9 * MB,
      10 * MB,
      25 * MB,
      64 * MB + 1,
      1024 * MB,
      4096 * MB,
      10_000 * MB,
    ]) {
      const p = chunkPlan(size);
      assert.equal(
        chunkRuleViolation(p.videoSize, p.chunkSize, p.totalChunkCount),
        undefined,
        `size ${size}`,
      );
      const last = chunkRange(p, p.totalChunkCount - 1);
      assert.equal(last.last, size - 1);
      assert.equal(chunkRange(p, 0).first, 0);
    }
    assert.throws(() => chunkPlan(0), RangeError);
    assert.throws(() => chunkPlan(70_000 * MB), RangeError);
  });
});

describe("review options", () => {
  const creator = {
    nickname: "N",
    username: "n",
    avatarUrl: null,
    privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "SELF_ONLY"],
    commentDisabled: false,
    duetDisabled: true,
    stitchDisabled: false,
    maxVideoPostDurationSec: 60,
  };
  const choice: ReviewChoice = {
    privacyLevel: "PUBLIC_TO_EVERYONE",
    allowComment: false,
    allowDuet: false,
    allowStitch: false,
    disclose: false,
    yourBrand: false,
    brandedContent: false,
    title: "t",
    consent: true,
  };
  const fields = (r: ReturnType<typeof validateReviewChoice>) =>
    "problems" in r ? r.problems.map((p) => p.field) : [];

  test("valid choices become TikTok's options, all interactions off by default", () => {
    assert.deepEqual(validateReviewChoice(choice, creator, { kind: "video", durationSeconds: 10 }), {
      options: { ...publicOptions, title: "t" },
    });
  });

  test("each rule refuses with its field", () => {
    const v = { kind: "video" as const, durationSeconds: 10 };
    assert.deepEqual(fields(validateReviewChoice({ ...choice, privacyLevel: undefined }, creator, v)), [
      "privacy_level",
    ]);
    assert.deepEqual(
      fields(validateReviewChoice({ ...choice, privacyLevel: "FOLLOWER_OF_CREATOR" }, creator, v)),
      ["privacy_level"],
    );
    assert.deepEqual(fields(validateReviewChoice({ ...choice, allowDuet: true }, creator, v)), [
      "allow_duet",
    ]);
    assert.deepEqual(fields(validateReviewChoice({ ...choice, consent: false }, creator, v)), ["consent"]);
    assert.deepEqual(fields(validateReviewChoice({ ...choice, disclose: true }, creator, v)), ["disclose"]);
    const branded = validateReviewChoice(
      { ...choice, disclose: true, brandedContent: true, privacyLevel: "SELF_ONLY" },
      creator,
      v,
    );
    assert.ok("problems" in branded && branded.problems.some((p) => p.message === BRANDED_NOT_PRIVATE));
    assert.deepEqual(fields(validateReviewChoice(choice, creator, { kind: "video", durationSeconds: 61 })), [
      "video",
    ]);
    assert.deepEqual(
      fields(validateReviewChoice({ ...choice, allowStitch: true }, creator, { kind: "photo" })),
      ["allow_duet"],
    );
    assert.deepEqual(
      fields(validateReviewChoice({ ...choice, title: "x".repeat(91) }, creator, { kind: "photo" })),
      ["title"],
    );
    const own = validateReviewChoice({ ...choice, disclose: true, yourBrand: true }, creator, v);
    assert.ok("options" in own && own.options.brand_organic_toggle && !own.options.brand_content_toggle);
  });
});

describe("metrics", () => {
  const statsScopes = (c: TikTokCreator, scopes?: string[]): TokenSet => ({
    ...tokensOf(c),
    scopes: scopes ?? [
      "user.info.basic",
      "user.info.profile",
      "user.info.stats",
      "video.list",
      "video.publish",
    ],
  });
  const accountOf = (c: TikTokCreator, scopes?: string[]) => ({
    ...ttJob(c, { type: "video", media: [clip] }).account,
    tokens: statsScopes(c, scopes),
  });

  test("follower_count and likes_count; a published video's counters by its public id; reach, saves null", async () => {
    const c = tt.addCreator({ username: "counted" });
    tt.stats.set(c.openId, {
      follower_count: 5120,
      following_count: 12,
      likes_count: 40_300,
      video_count: 7,
    });
    const job = ttJob(c, { type: "video", media: [clip], options: publicOptions });
    const { result } = await drive(adapter().publisher, job);
    if (result.state !== "published") throw new Error("not published");
    Object.assign(tt.videos.get(result.networkPostId)!, {
      view_count: 9876,
      like_count: 543,
      comment_count: 21,
      share_count: 8,
    });
    const metrics = adapter().metrics!;
    assert.deepEqual(await metrics.account(accountOf(c)), {
      followers: 5120,
      views: null,
      likes: 40_300,
      comments: null,
      shares: null,
    });
    const post = {
      networkPostId: result.networkPostId,
      networkIds: job.delivery.networkIds,
      type: "video",
      publishedAt: new Date(),
    };
    assert.deepEqual(await metrics.post(accountOf(c), post), {
      views: 9876,
      reach: null,
      likes: 543,
      comments: 21,
      shares: 8,
      saves: null,
    });
  });

  test("no public id (SELF_ONLY): all null without a call; a post TikTok no longer returns; a missing scope", async () => {
    const c = tt.addCreator({ username: "hidden" });
    const job = ttJob(c, {
      type: "video",
      media: [clip],
      options: { ...publicOptions, privacy_level: "SELF_ONLY" },
    });
    const { result } = await drive(adapter().publisher, job);
    if (result.state !== "published") throw new Error("not published");
    const before = server.hitsFor(TT_API_HOST, "/v2/video/query/").length;
    const metrics = adapter().metrics!;
    const post = { networkIds: job.delivery.networkIds, type: "video", publishedAt: new Date() };
    assert.deepEqual(await metrics.post(accountOf(c), { ...post, networkPostId: result.networkPostId }), {
      views: null,
      reach: null,
      likes: null,
      comments: null,
      shares: null,
      saves: null,
    });
    assert.equal(server.hitsFor(TT_API_HOST, "/v2/video/query/").length, before);
    const someoneElses = tt.addVideo(tt.addCreator({ username: "else" }).openId, { view_count: 5 });
    await assert.rejects(
      metrics.post(accountOf(c), { ...post, networkIds: {}, networkPostId: someoneElses }),
      (e: unknown) => e instanceof NetworkRejectedError && /did not return this post/.test(e.message),
    );
    await assert.rejects(
      metrics.account(accountOf(c, ["user.info.basic", "video.publish"])),
      (e: unknown) =>
        e instanceof NetworkRejectedError &&
        !(e instanceof NetworkAuthError) &&
        /user\.info\.stats/.test(e.message),
    );
  });

  test("429 on video/query: NetworkRateLimitError with the wait; a revoked token: NetworkAuthError", async () => {
    const c = tt.addCreator({ username: "rl.metrics" });
    const id = tt.addVideo(c.openId, { view_count: 1 });
    const post = { networkPostId: id, networkIds: {}, type: "video", publishedAt: new Date() };
    server.fault(
      { host: TT_API_HOST, path: "/v2/video/query/" },
      {
        kind: "rate_limit",
        retryAfterSeconds: 20,
        body: { data: {}, error: { code: "rate_limit_exceeded", message: "slow down", log_id: "x" } },
      },
    );
    const metrics = adapter().metrics!;
    await assert.rejects(
      metrics.post(accountOf(c), post),
      (e: unknown) => e instanceof NetworkRateLimitError && e.retryAfterSeconds === 20,
    );
    assert.equal((await metrics.post(accountOf(c), post)).views, 1);
    tt.revokeCreator(c.openId);
    await assert.rejects(metrics.account(accountOf(c)), NetworkAuthError);
  });
});
