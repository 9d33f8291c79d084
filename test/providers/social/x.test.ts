/**
 * The live X adapter against the provider-shaped fake (test/fakes/x.ts) through SOCIAL_HTTP_OVERRIDE:
 * connect (PKCE S256, HTTP Basic token exchange, rotating refresh tokens, the user), posting text, 4 images
 * and a chunked video (initialize / append / finalize / STATUS) to `published` with the fake's permalink, the
 * faults (worker killed mid-upload resumes at the next segment, an expired media id starts over, a lost
 * create answer reconciled from the user's timeline, X's duplicate-content answer after an armed create,
 * 429 with Retry-After or x-rate-limit-reset, the 24-hour user post cap, a revoked token), the error
 * mapping, the counters, and the same faults through the delivery engine (outcome_unknown -> reconciled,
 * needs_reconnect).
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import type { Owner } from "../../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../../src/domain/social/accounts.ts";
import { advanceDeliveries } from "../../../src/domain/social/engine.ts";
import { publishPost } from "../../../src/domain/social/publish.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import {
  type DeliveryJob,
  type JobMedia,
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../../../src/providers/social/network.ts";
import { xAdapter } from "../../../src/providers/social/x/adapter.ts";
import { xError, xRateLimitWait } from "../../../src/providers/social/x/api.ts";
import { SEGMENT_BYTES } from "../../../src/providers/social/x/media.ts";
import { X_CAPABILITIES, X_SCOPES } from "../../../src/providers/social/x/oauth.ts";
import { comparableText } from "../../../src/providers/social/x/publisher.ts";
import { drive, jobFor, saverFor, startMediaHost } from "../../fakes/jobs.ts";
import { FAKE_APPS, liveNetworkEnv } from "../../fakes/live-env.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { connectedXAccount, X_API_HOST, type XUser, xFake } from "../../fakes/x.ts";
import { startTestApp, TestClock } from "../../helpers/app.ts";
import { approvedTextPost } from "../../helpers/first-comment.ts";
import { HIGH_LIMITS } from "../../oauth/support.ts";

const MB = 1024 * 1024;
const credentials = FAKE_APPS.x;
const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const x = xFake(server, credentials);
const adapter = () =>
  xAdapter(credentials, {
    publicBaseUrl: "http://127.0.0.1",
    sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
    now: () => new Date(),
    http,
  });

const host = await startMediaHost();
const samples = await networkSamples();
const photos: JobMedia[] = [];
for (let i = 1; i <= 4; i++)
  photos.push(await host.add({ name: `p${i}.jpg`, file: samples.jpg, kind: "image", mime: "image/jpeg" }));
const clipBytes = await readFile(samples.mp4);
// The sample MP4 followed by padding: 10 MB, so the upload takes 3 segments (4 + 4 + 2 MB).
const video = await host.add({
  name: "video.mp4",
  bytes: Buffer.concat([clipBytes, Buffer.alloc(10 * MB - clipBytes.length)]),
  kind: "video",
  mime: "video/mp4",
  durationSeconds: 4,
});
const notAVideo = await host.add({ name: "fake.mp4", file: samples.jpg, kind: "video", mime: "video/mp4" });

const xJob = (u: XUser, input: { caption?: string; type?: string; media?: JobMedia[] } = {}): DeliveryJob =>
  jobFor({
    network: "x",
    networkAccountId: u.id,
    handle: u.username,
    tokens: u.accessToken,
    caption: input.caption ?? `hello ${randomBytes(4).toString("hex")}`,
    type:
      input.type ?? (input.media?.length ? (input.media[0]!.kind === "video" ? "video" : "image") : "text"),
    media: input.media ?? [],
  });

// The engine's waits (a network's next poll, Retry-After) pass at once on this clock and move it.
const clock = new TestClock({ skipWaits: true });
const app = await startTestApp({ clock, env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["x"]) } });
const alice = await app.user({ workspace: "Alice X" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;

const hits = (path: string | RegExp, method = "POST") => server.hitsFor(X_API_HOST, path, method).length;

describe("connect", () => {
  test("authorize with PKCE S256, code exchange with HTTP Basic, the user, refresh rotates the refresh token", async () => {
    const user = x.addUser({ username: "mugs_co", name: "Mugs & Co" });
    const a = adapter();
    const redirectUri = "https://app.example.test/settings/social/callback/x";
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const url = a.oauth.authorizeUrl({ state: "st-1", redirectUri, codeChallenge: challenge });
    const u = new URL(url);
    assert.equal(`${u.origin}${u.pathname}`, "https://x.com/i/oauth2/authorize");
    assert.equal(u.searchParams.get("client_id"), credentials.clientId);
    assert.equal(u.searchParams.get("scope"), "tweet.read tweet.write users.read offline.access media.write");
    assert.equal(u.searchParams.get("code_challenge"), challenge);
    assert.equal(u.searchParams.get("code_challenge_method"), "S256");
    assert.equal(a.oauth.pkce, true);
    assert.deepEqual([...a.oauth.requiredScopes], [...X_SCOPES]);

    const consent = async () => {
      const res = await fetch(http.overrideUrl(url), { redirect: "manual" });
      assert.equal(res.status, 302);
      const back = new URL(res.headers.get("location")!);
      assert.equal(back.searchParams.get("state"), "st-1");
      return back.searchParams.get("code")!;
    };
    // The fake checks the verifier against the challenge: a wrong one is refused.
    await assert.rejects(
      a.oauth.exchangeCode({ code: await consent(), redirectUri, codeVerifier: `${verifier}x` }),
      NetworkAuthError,
    );
    const tokens = await a.oauth.exchangeCode({ code: await consent(), redirectUri, codeVerifier: verifier });
    assert.ok(x.tokenValid(tokens.accessToken));
    const minutes = (tokens.expiresAt!.getTime() - Date.now()) / 60_000;
    assert.ok(minutes > 119 && minutes <= 120, "2-hour access token");
    assert.ok(tokens.refreshToken, "offline.access gives a refresh token");
    assert.deepEqual(tokens.scopes, [...X_SCOPES]);

    const [account] = await a.oauth.accounts(tokens);
    assert.equal(account!.networkAccountId, user.id);
    assert.equal(account!.handle, "mugs_co");
    assert.equal(account!.displayName, "Mugs & Co");
    assert.match(account!.avatarUrl!, /^https:\/\/pbs\.twimg\.com\//);
    assert.deepEqual(account!.capabilities, X_CAPABILITIES);
    assert.deepEqual(account!.metadata, { username: "mugs_co" });

    const next = await a.oauth.refresh(tokens);
    assert.notEqual(next.accessToken, tokens.accessToken);
    assert.ok(next.refreshToken && next.refreshToken !== tokens.refreshToken, "a new refresh token");
    assert.ok(x.tokenValid(next.accessToken));
    await assert.rejects(a.oauth.refresh(tokens), NetworkAuthError, "the old refresh token stopped working");
    assert.ok((await a.oauth.refresh(next)).refreshToken);
  });

  test("the client secret goes by HTTP Basic: a wrong one is refused; a denied consent comes back as an error", async () => {
    x.addUser();
    const wrong = xAdapter(
      { ...credentials, clientSecret: "nope" },
      { publicBaseUrl: "", sealer: { seal: String, open: (s) => s as never }, now: () => new Date(), http },
    );
    const verifier = randomBytes(32).toString("base64url");
    const url = wrong.oauth.authorizeUrl({
      state: "s",
      redirectUri: "https://app.example.test/cb",
      codeChallenge: createHash("sha256").update(verifier).digest("base64url"),
    });
    const back = new URL(
      (await fetch(http.overrideUrl(url), { redirect: "manual" })).headers.get("location")!,
    );
    await assert.rejects(
      wrong.oauth.exchangeCode({
        code: back.searchParams.get("code")!,
        redirectUri: "https://app.example.test/cb",
        codeVerifier: verifier,
      }),
      (e: unknown) => e instanceof NetworkAuthError && /unauthorized_client/.test(e.message),
    );
    x.denyNext = true;
    const denied = new URL(
      (await fetch(http.overrideUrl(url), { redirect: "manual" })).headers.get("location")!,
    );
    assert.equal(denied.searchParams.get("error"), "access_denied");
    assert.throws(
      () => adapter().oauth.authorizeUrl({ state: "s", redirectUri: "https://a.test/cb" }),
      /PKCE/,
    );
  });
});

describe("publish", () => {
  test("text alone: armed, posted once, published at x.com/{username}/status/{id}", async () => {
    const user = x.addUser({ username: "texter" });
    const before = x.created;
    const job = xJob(user, { caption: "Launch day & more: https://example.com/shop?x=1 <3" });
    const { result, states } = await drive(adapter().publisher, job);
    assert.deepEqual(states, ["published"]);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const tweet = x.tweets.get(result.networkPostId)!;
    assert.equal(result.postUrl, `https://x.com/texter/status/${tweet.id}`);
    assert.equal(tweet.sent, "Launch day & more: https://example.com/shop?x=1 <3");
    assert.match(tweet.text, /^Launch day &amp; more: https:\/\/t\.co\/\S+ &lt;3$/, "X's rendering");
    const ids = job.delivery.networkIds;
    assert.equal(ids.tweetId, tweet.id);
    assert.ok(Date.parse(ids.armedAt as string) <= tweet.createdAt.getTime(), "armed before the create");
    assert.equal(x.created - before, 1);
  });

  test("4 images: each uploaded in one call (tweet_image), attached in order", async () => {
    const user = x.addUser({ username: "pics" });
    const uploads = hits("/2/media/upload");
    const job = xJob(user, { type: "carousel", media: photos });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    assert.equal(hits("/2/media/upload") - uploads, 4);
    const tweet = x.tweets.get(result.networkPostId)!;
    assert.deepEqual(tweet.mediaIds, job.delivery.networkIds.imageMediaIds);
    assert.deepEqual(tweet.mediaKeys, job.delivery.networkIds.imageMediaKeys);
    assert.ok(tweet.mediaKeys.every((k) => k.startsWith("3_")));
    assert.equal(result.postUrl, `https://x.com/pics/status/${tweet.id}`);
  });

  test("a video: initialize, 3 appended segments with every byte counted, finalize, STATUS until succeeded", async () => {
    const user = x.addUser({ username: "vids" });
    const before = {
      init: hits("/2/media/upload/initialize"),
      bytes: server.counter("x.appendedBytes"),
      status: hits("/2/media/upload", "GET"),
    };
    const job = xJob(user, { media: [video] });
    const { result, states } = await drive(adapter().publisher, job);
    // initialize; append + finalize (pending); STATUS (succeeded) + the post.
    assert.deepEqual(states, ["uploading", "processing", "published"]);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const ids = job.delivery.networkIds;
    assert.equal(ids.segmentCount, 3);
    assert.equal(ids.segmentBytes, SEGMENT_BYTES);
    assert.equal(ids.segmentsSent, 3);
    assert.equal(hits("/2/media/upload/initialize") - before.init, 1);
    assert.equal(hits(`/2/media/upload/${ids.videoMediaId}/append`), 3);
    assert.equal(hits(`/2/media/upload/${ids.videoMediaId}/finalize`), 1);
    assert.equal(hits("/2/media/upload", "GET") - before.status, 1, "STATUS polled once");
    assert.equal(server.counter("x.appendedBytes") - before.bytes, video.bytes);
    const tweet = x.tweets.get(result.networkPostId)!;
    assert.deepEqual(tweet.mediaIds, [ids.videoMediaId]);
    assert.equal(x.media.get(ids.videoMediaId as string)!.state, "succeeded");
  });

  test("a video X cannot process: failed with X's error message, nothing posted", async () => {
    const user = x.addUser();
    const before = x.created;
    const { result } = await drive(adapter().publisher, xJob(user, { media: [notAVideo] }));
    assert.equal(result.state, "failed");
    // Neither of X's descriptions gives `processing_info` an `error`: the reason says none was given.
    if (result.state === "failed")
      assert.match(result.reason, /could not process the video \(no reason given\)/);
    assert.equal(x.created, before);
  });
});

describe("faults", () => {
  test("worker killed mid-upload: a new worker resumes APPEND at the next segment, no second upload or post", async () => {
    const user = x.addUser({ username: "crashy" });
    const before = {
      init: hits("/2/media/upload/initialize"),
      bytes: server.counter("x.appendedBytes"),
      posts: x.created,
    };
    const job = xJob(user, { caption: "resume me", media: [video] });
    const a = adapter();
    assert.equal((await a.publisher.step(job, saverFor(job))).state, "uploading");
    assert.ok(job.delivery.networkIds.videoMediaId, "the media id was saved right after initialize");
    // The worker dies right after saving segment 0 as appended.
    const dying = async (patch: Record<string, unknown>) => {
      job.delivery.networkIds = { ...job.delivery.networkIds, ...patch };
      if (patch.segmentsSent === 1) throw new Error("worker killed");
    };
    await assert.rejects(a.publisher.step(job, dying), /worker killed/);
    const saved = structuredClone(job.delivery.networkIds);
    assert.equal(saved.segmentsSent, 1);
    const resumed = xJob(user, { caption: "resume me", media: [video] });
    resumed.delivery.networkIds = saved;
    resumed.delivery.state = "uploading";
    const { result } = await drive(adapter().publisher, resumed);
    assert.equal(result.state, "published");
    assert.equal(hits("/2/media/upload/initialize") - before.init, 1, "one upload session");
    assert.equal(hits(`/2/media/upload/${saved.videoMediaId}/append`), 3, "each segment appended once");
    assert.equal(server.counter("x.appendedBytes") - before.bytes, video.bytes);
    assert.equal(x.created - before.posts, 1);
  });

  test("an expired media id is not resumed: the upload starts over with a new one", async () => {
    const user = x.addUser();
    const job = xJob(user, { media: [video] });
    const a = adapter();
    await a.publisher.step(job, saverFor(job));
    const old = job.delivery.networkIds.videoMediaId as string;
    // A day later (the worker was down): X expired the id.
    x.media.get(old)!.expiresAt = Date.now() - 1000;
    job.delivery.networkIds.videoExpiresAt = new Date(Date.now() - 1000).toISOString();
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const fresh = job.delivery.networkIds.videoMediaId as string;
    assert.notEqual(fresh, old);
    assert.deepEqual(x.tweets.get(result.networkPostId)!.mediaIds, [fresh]);
    assert.equal(hits(`/2/media/upload/${old}/append`), 0);
  });

  test("lost answer to POST /2/tweets: outcome unknown, reconciled from the timeline, never posted twice", async () => {
    const user = x.addUser({ username: "lost" });
    const before = x.created;
    // X renders the text (entities, t.co links, a trailing link for the media): the match undoes it.
    const job = xJob(user, { caption: "Tom & Jerry https://example.com/a", media: [photos[0]!] });
    server.fault({ host: X_API_HOST, path: "/2/tweets", method: "POST" }, { kind: "lost" });
    const creates = hits("/2/tweets");
    const a = adapter();
    const err = await a.publisher.step(job, saverFor(job)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof NetworkTransientError && err.afterCreate, "afterCreate transient error");
    assert.equal(x.created - before, 1, "the fake did the work");
    assert.ok(job.delivery.networkIds.armedAt && !job.delivery.networkIds.tweetId);
    const r = await a.publisher.reconcile(job, saverFor(job));
    assert.equal(r.state, "published");
    if (r.state !== "published") return;
    const tweet = x.postsOf(user.id)[0]!;
    assert.equal(r.networkPostId, tweet.id);
    assert.equal(r.postUrl, `https://x.com/lost/status/${tweet.id}`);
    assert.equal((await a.publisher.step(job, saverFor(job))).state, "published");
    assert.equal(x.created - before, 1, "still exactly one post");
    assert.equal(hits("/2/tweets") - creates, 1, "the create was sent once");
  });

  test("a create that did not happen (503): reconcile says not created, the retry posts once", async () => {
    const user = x.addUser();
    const before = x.created;
    const job = xJob(user);
    server.fault(
      { host: X_API_HOST, path: "/2/tweets", method: "POST" },
      {
        kind: "status",
        status: 503,
        body: {
          title: "Service Unavailable",
          detail: "Service Unavailable",
          type: "about:blank",
          status: 503,
        },
      },
    );
    const a = adapter();
    await assert.rejects(
      a.publisher.step(job, saverFor(job)),
      (e: unknown) => e instanceof NetworkTransientError && e.afterCreate,
    );
    assert.deepEqual(await a.publisher.reconcile(job, saverFor(job)), { state: "not_created" });
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    assert.equal(x.created - before, 1);
  });

  test("X's 403 duplicate content on the retry of an armed create: the post is looked up again and adopted", async () => {
    const user = x.addUser({ username: "dupe" });
    const before = x.created;
    const job = xJob(user, { caption: "posted once, listed late" });
    x.timelineLag = 2; // the new post is missing from the next two timeline reads
    try {
      server.fault({ host: X_API_HOST, path: "/2/tweets", method: "POST" }, { kind: "lost" });
      const a = adapter();
      await assert.rejects(a.publisher.step(job, saverFor(job)), NetworkTransientError);
      assert.deepEqual(
        await a.publisher.reconcile(job, saverFor(job)),
        { state: "not_created" },
        "not listed yet",
      );
      const r = await a.publisher.step(job, saverFor(job));
      assert.equal(r.state, "published");
      if (r.state === "published") assert.equal(r.networkPostId, x.postsOf(user.id)[0]!.id);
      assert.equal(x.created - before, 1);
      assert.deepEqual(
        server
          .hitsFor(X_API_HOST, "/2/tweets", "POST")
          .slice(-2)
          .map((h) => h.status),
        ["lost", 403],
      );
    } finally {
      x.timelineLag = 0;
    }
  });

  test("duplicate content on a first attempt is X refusing the post", async () => {
    const user = x.addUser();
    await drive(adapter().publisher, xJob(user, { caption: "same words" }));
    await assert.rejects(
      adapter().publisher.step(xJob(user, { caption: "same words" }), async () => {}),
      (e: unknown) => {
        assert.ok(e instanceof NetworkRejectedError);
        assert.match(e.message, /duplicate content/);
        return true;
      },
    );
  });

  test("429 with Retry-After on the create: the wait, nothing created; the next step looks first, then posts once", async () => {
    const user = x.addUser();
    const before = x.created;
    const job = xJob(user);
    server.fault(
      { host: X_API_HOST, path: "/2/tweets", method: "POST" },
      { kind: "rate_limit", retryAfterSeconds: 7 },
    );
    const a = adapter();
    await assert.rejects(a.publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRateLimitError);
      assert.equal(e.retryAfterSeconds, 7);
      return true;
    });
    assert.equal(x.created, before);
    const timeline = hits(`/2/users/${user.id}/tweets`, "GET");
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    assert.equal(hits(`/2/users/${user.id}/tweets`, "GET") - timeline, 1, "looked before creating again");
    assert.equal(x.created - before, 1);
  });

  test("429 on a media upload waits until x-rate-limit-reset (epoch seconds)", async () => {
    const user = x.addUser();
    const reset = Math.floor(Date.now() / 1000) + 120;
    server.fault(
      { host: X_API_HOST, path: "/2/media/upload", method: "POST" },
      {
        kind: "status",
        status: 429,
        body: { title: "Too Many Requests", detail: "Too Many Requests", type: "about:blank", status: 429 },
        headers: {
          "x-rate-limit-limit": "500",
          "x-rate-limit-remaining": "0",
          "x-rate-limit-reset": String(reset),
        },
      },
    );
    const job = xJob(user, { media: [photos[1]!] });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRateLimitError);
      assert.ok(e.retryAfterSeconds >= 119 && e.retryAfterSeconds <= 121, String(e.retryAfterSeconds));
      return true;
    });
    assert.deepEqual(job.delivery.networkIds, {}, "nothing uploaded");
  });

  test("the 24-hour user post cap: a rate limit until x-user-limit-24hour-reset, nothing created", async () => {
    const user = x.addUser();
    x.dailyTweetLimit = 1;
    try {
      assert.equal((await drive(adapter().publisher, xJob(user))).result.state, "published");
      const before = x.created;
      const job = xJob(user);
      await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
        assert.ok(e instanceof NetworkRateLimitError);
        assert.ok(e.retryAfterSeconds > 86_000 && e.retryAfterSeconds <= 86_401, String(e.retryAfterSeconds));
        return true;
      });
      assert.equal(x.created, before);
    } finally {
      x.dailyTweetLimit = undefined;
    }
  });

  test("revoked token: NetworkAuthError without the token in the message; the refresh is refused too", async () => {
    const user = x.addUser();
    x.revokeUser(user.id);
    const a = adapter();
    await assert.rejects(
      a.publisher.step(xJob(user), async () => {}),
      (e: unknown) => {
        assert.ok(e instanceof NetworkAuthError);
        assert.match(e.message, /HTTP 401/);
        assert.ok(!e.message.includes(user.accessToken));
        return true;
      },
    );
    await assert.rejects(
      a.oauth.refresh({ accessToken: user.accessToken, refreshToken: user.refreshToken, scopes: [] }),
      NetworkAuthError,
    );
  });
});

describe("errors and matching", () => {
  const res = (status: number, headers: Record<string, string> = {}) =>
    new Response(null, { status, headers });

  test("X's problem answers map to the adapter errors", () => {
    const now = new Date("2026-11-24T10:00:00Z");
    const epoch = now.getTime() / 1000;
    assert.ok(xError(res(401), { title: "Unauthorized" }, false) instanceof NetworkAuthError);
    assert.ok(
      xError(
        res(403),
        { type: "https://api.twitter.com/2/problems/unsupported-authentication" },
        false,
      ) instanceof NetworkAuthError,
    );
    const policy = xError(res(403), { detail: "You are not permitted to perform this action." }, false);
    assert.ok(policy instanceof NetworkRejectedError && /not permitted/.test(policy.message));
    const capped = xError(res(429), { type: "https://api.twitter.com/2/problems/usage-capped" }, false);
    assert.ok(capped instanceof NetworkRejectedError && /usage cap/.test(capped.message));
    const server = xError(res(503), undefined, true);
    assert.ok(server instanceof NetworkTransientError && server.afterCreate);
    assert.ok(xError(res(400), { errors: [{ message: "bad" }] }, false) instanceof NetworkRejectedError);
    // The latest applicable reset wins; a window with requests left does not count.
    const h = new Headers({
      "x-rate-limit-remaining": "3",
      "x-rate-limit-reset": String(epoch + 900),
      "x-user-limit-24hour-remaining": "0",
      "x-user-limit-24hour-reset": String(epoch + 3600),
    });
    assert.equal(xRateLimitWait(h, now), 3600);
    assert.equal(xRateLimitWait(new Headers({ "retry-after": "30" }), now), 30);
    assert.equal(xRateLimitWait(new Headers(), now), 60);
  });

  test("our caption and X's rendering of it compare equal; other texts do not", () => {
    assert.equal(
      comparableText("Tom & Jerry <3 https://example.com/a?b=1 end"),
      comparableText("Tom &amp; Jerry &lt;3 https://t.co/AbCdEf1234 end https://t.co/Media12345"),
    );
    assert.notEqual(comparableText("Tom & Jerry"), comparableText("Tom & Jerry!"));
  });
});

describe("metrics", () => {
  test("post counters from public_metrics: views, likes, comments, shares = retweets + quotes, saves; reach null", async () => {
    const user = x.addUser();
    const job = xJob(user);
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    x.setMetrics(result.networkPostId, {
      impression_count: 1520,
      like_count: 87,
      reply_count: 9,
      retweet_count: 12,
      quote_count: 3,
      bookmark_count: 21,
    });
    const counters = await adapter().metrics!.post(job.account, {
      networkPostId: result.networkPostId,
      networkIds: job.delivery.networkIds,
      type: "text",
      publishedAt: new Date(),
    });
    assert.deepEqual(counters, { views: 1520, reach: null, likes: 87, comments: 9, shares: 15, saves: 21 });
    await assert.rejects(
      adapter().metrics!.post(job.account, {
        networkPostId: "1",
        networkIds: {},
        type: "text",
        publishedAt: new Date(),
      }),
      NetworkRejectedError,
    );
  });

  test("account counters: followers only; the likes the user gave are not mapped", async () => {
    const user = x.addUser({ followers: 4321, likesGiven: 999 });
    const counters = await adapter().metrics!.account(xJob(user).account);
    assert.deepEqual(counters, { followers: 4321, views: null, likes: null, comments: null, shares: null });
  });
});

describe("through the delivery engine", () => {
  const connect = async (user: XUser): Promise<string> => {
    const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, connectedXAccount(user));
    return account.social_account_id;
  };
  const publishText = async (accountId: string, caption: string) => {
    const postId = await approvedTextPost(app.ctx, owner, caption);
    const result = await publishPost(
      app.ctx,
      owner,
      { post_id: postId, social_account_ids: [accountId] },
      undefined,
    );
    await advanceDeliveries(app.ctx, [result.deliveries[0]!.delivery_id], { budgetSeconds: 60 });
    return db("deliveries").where({ post_id: postId }).first();
  };

  test("a lost create answer: outcome_unknown, reconciled from the timeline, one post", async () => {
    const user = x.addUser({ username: "engine_lost" });
    const account = await connect(user);
    const before = { posts: x.created, creates: hits("/2/tweets") };
    server.fault({ host: X_API_HOST, path: "/2/tweets", method: "POST" }, { kind: "lost" });
    const d = await publishText(account, "Engine: lost answer");
    assert.equal(d.status, "published", d.error ?? "");
    const tweet = x.postsOf(user.id)[0]!;
    assert.equal(d.post_url, `https://x.com/engine_lost/status/${tweet.id}`);
    assert.equal(d.provider_post_id, tweet.id);
    assert.equal(x.created - before.posts, 1, "one post");
    assert.equal(hits("/2/tweets") - before.creates, 1, "the create was sent once");
  });

  test("429 with Retry-After is waited out, one post", async () => {
    const user = x.addUser({ username: "engine_429" });
    const account = await connect(user);
    const before = x.created;
    server.fault(
      { host: X_API_HOST, path: "/2/tweets", method: "POST" },
      { kind: "rate_limit", retryAfterSeconds: 2 },
    );
    const started = clock.now().getTime();
    const d = await publishText(account, "Engine: after the wait");
    assert.equal(d.status, "published", d.error ?? "");
    assert.ok(clock.now().getTime() - started >= 2000, "the Retry-After wait was honoured");
    assert.equal(x.created - before, 1);
  });

  test("a revoked token: the account needs_reconnect, the delivery fails with a clear reason", async () => {
    const user = x.addUser({ username: "engine_revoked" });
    const account = await connect(user);
    x.revokeUser(user.id);
    const d = await publishText(account, "Engine: revoked");
    assert.equal(d.status, "failed");
    assert.match(d.error, /needs to be reconnected on \/settings\/social/);
    assert.ok(!String(d.error).includes(user.accessToken));
    assert.equal((await db("social_accounts").where({ id: account }).first()).status, "needs_reconnect");
  });
});
