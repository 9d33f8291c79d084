/**
 * The live YouTube adapter against the provider-shaped fake (test/fakes/youtube.ts) through
 * SOCIAL_HTTP_OVERRIDE: connect (Google OAuth with PKCE, offline access, the channel), publishing Shorts and
 * regular videos by the resumable upload protocol (chunks, 308 + Range, the final video resource), the
 * processing poll, the per-account defaults, and the faults: a worker killed mid-upload resumes from the
 * session's Range, a lost answer to the final chunk is reconciled from the session (or, when the session is
 * gone, from the channel's uploads), 429, the daily quotas, a revoked token. Plus the metrics.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import {
  type JobMedia,
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
  type TokenSet,
} from "../../../src/providers/social/network.ts";
import { youtubeAdapter } from "../../../src/providers/social/youtube/adapter.ts";
import { videoDescription, videoTitle } from "../../../src/providers/social/youtube/metadata.ts";
import { videoPermalink } from "../../../src/providers/social/youtube/publisher.ts";
import { nextQuotaReset } from "../../../src/providers/social/youtube/quota-day.ts";
import { CHUNK_BYTES } from "../../../src/providers/social/youtube/upload.ts";
import { drive, jobFor, saverFor, startMediaHost } from "../../fakes/jobs.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import {
  GOOGLE_APIS_HOST,
  type GoogleUser,
  SCOPE_FORCE_SSL,
  SCOPE_READONLY,
  SCOPE_UPLOAD,
  YT_UPLOAD_PATH,
  youtubeFake,
} from "../../fakes/youtube.ts";

const credentials = { clientId: "yt-test.apps.googleusercontent.com", clientSecret: "yt-test-secret" };
const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const yt = youtubeFake(server, credentials);
const adapter = () =>
  youtubeAdapter(credentials, {
    publicBaseUrl: "http://127.0.0.1",
    sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
    now: () => new Date(),
    http,
  });

const MiB = 1024 * 1024;
const host = await startMediaHost();
const samples = await networkSamples();
const clipBytes = await readFile(samples.mp4);
/** The 4 s 180x320 sample: a Short. */
const short: JobMedia = {
  ...(await host.add({
    name: "short.mp4",
    file: samples.mp4,
    kind: "video",
    mime: "video/mp4",
    durationSeconds: 4,
  })),
  width: 1080,
  height: 1920,
};
/** The same bytes declared landscape: a regular video. */
const landscape: JobMedia = { ...short, assetId: "landscape.mp4", width: 1920, height: 1080 };
/** 20 MiB (the sample MP4 then padding): 3 chunks of 8 + 8 + 4 MiB. */
const bigBytes = Buffer.concat([clipBytes, Buffer.alloc(20 * MiB - clipBytes.length, 7)]);
const big: JobMedia = {
  ...(await host.add({
    name: "big.mp4",
    bytes: bigBytes,
    kind: "video",
    mime: "video/mp4",
    durationSeconds: 60,
  })),
  width: 1080,
  height: 1920,
};
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const tokensOf = (u: GoogleUser): TokenSet => ({
  accessToken: u.accessToken,
  refreshToken: u.refreshToken,
  scopes: [SCOPE_UPLOAD, SCOPE_READONLY],
});

function ytJob(
  u: GoogleUser,
  input: { media: JobMedia[]; caption?: string; title?: string | null; settings?: Record<string, unknown> },
) {
  return jobFor({
    network: "youtube",
    networkAccountId: u.channel!.id,
    handle: u.channel!.customUrl.slice(1),
    tokens: tokensOf(u),
    type: "video",
    caption: input.caption ?? "Launch day\nOur new mug, filmed in the studio.",
    title: input.title ?? null,
    media: input.media,
    settings: input.settings ?? {},
  });
}

describe("connect", () => {
  test("consent with PKCE S256, offline access and prompt=consent; the channel; refresh keeps the refresh token", async () => {
    const user = yt.addUser({ title: "Mugs & Co", customUrl: "@mugsandco" });
    const a = adapter();
    const redirectUri = "https://app.example.test/settings/social/callback/youtube";
    const verifier = "v".repeat(43);
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const url = new URL(a.oauth.authorizeUrl({ state: "st-9", redirectUri, codeChallenge: challenge }));
    assert.equal(`${url.origin}${url.pathname}`, "https://accounts.google.com/o/oauth2/v2/auth");
    const q = url.searchParams;
    assert.equal(q.get("client_id"), credentials.clientId);
    assert.equal(q.get("access_type"), "offline");
    assert.equal(q.get("prompt"), "consent");
    assert.equal(q.get("code_challenge_method"), "S256");
    assert.equal(q.get("scope"), `${SCOPE_UPLOAD} ${SCOPE_READONLY} ${SCOPE_FORCE_SSL}`);
    assert.equal(a.oauth.pkce, true);
    const res = await fetch(http.overrideUrl(url.toString()), { redirect: "manual" });
    assert.equal(res.status, 302);
    const back = new URL(res.headers.get("location")!);
    assert.equal(back.searchParams.get("state"), "st-9");
    const code = back.searchParams.get("code")!;
    const tokens = await a.oauth.exchangeCode({ code, redirectUri, codeVerifier: verifier });
    assert.ok(tokens.refreshToken, "offline access gives a refresh token");
    const minutes = (tokens.expiresAt!.getTime() - Date.now()) / 60_000;
    assert.ok(minutes > 58 && minutes <= 60, "1-hour access token");
    assert.deepEqual(tokens.scopes, [SCOPE_UPLOAD, SCOPE_READONLY, SCOPE_FORCE_SSL]);
    const [account, ...more] = await a.oauth.accounts(tokens);
    assert.equal(more.length, 0);
    assert.equal(account!.networkAccountId, user.channel!.id);
    assert.equal(account!.handle, "mugsandco");
    assert.equal(account!.displayName, "Mugs & Co");
    assert.match(account!.avatarUrl!, /^https:\/\/yt3\.ggpht\.com\//);
    assert.deepEqual(account!.capabilities, { text: false, image: false, carousel: false, video: true });
    const next = await a.oauth.refresh(tokens);
    assert.notEqual(next.accessToken, tokens.accessToken);
    assert.ok(yt.tokenValid(next.accessToken));
    assert.equal(
      next.refreshToken,
      tokens.refreshToken,
      "Google sends no new refresh token: the old one is kept",
    );
    await assert.rejects(
      a.oauth.exchangeCode({ code, redirectUri, codeVerifier: verifier }),
      NetworkAuthError,
    );
  });

  test("a wrong PKCE verifier is refused; a Google account without a channel has no account", async () => {
    yt.addUser({ channel: false });
    const a = adapter();
    const redirectUri = "https://app.example.test/settings/social/callback/youtube";
    const challenge = createHash("sha256").update("right-verifier").digest("base64url");
    const consent = async () => {
      const res = await fetch(
        http.overrideUrl(a.oauth.authorizeUrl({ state: "s", redirectUri, codeChallenge: challenge })),
        { redirect: "manual" },
      );
      return new URL(res.headers.get("location")!).searchParams.get("code")!;
    };
    await assert.rejects(
      a.oauth.exchangeCode({ code: await consent(), redirectUri, codeVerifier: "wrong-verifier" }),
      (e: unknown) => e instanceof NetworkAuthError && /invalid_grant/.test(e.message),
    );
    const tokens = await a.oauth.exchangeCode({
      code: await consent(),
      redirectUri,
      codeVerifier: "right-verifier",
    });
    assert.deepEqual(await a.oauth.accounts(tokens), []);
  });

  test("the per-account defaults: privacy (private by default) and made for kids (no by default)", async () => {
    const fields = await adapter().accountSettings!(ytJob(yt.addUser(), { media: [short] }).account);
    assert.deepEqual(
      fields.map((f) => [f.key, f.options.map(([v]) => v), f.defaultValue]),
      [
        ["privacy", ["private", "unlisted", "public"], "private"],
        ["made_for_kids", ["no", "yes"], "no"],
      ],
    );
  });
});

describe("publish", () => {
  test("a vertical 4 s video: one session, one chunk, processed -> published as a Short", async () => {
    const user = yt.addUser();
    const before = { inserts: yt.inserts, videos: yt.videosCreated };
    const job = ytJob(user, { media: [short] });
    const { result, states } = await drive(adapter().publisher, job);
    assert.deepEqual(states, ["processing", "processing", "published"]);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const video = yt.videos.get(result.networkPostId)!;
    assert.equal(result.postUrl, `https://www.youtube.com/shorts/${video.id}`);
    assert.equal(video.title, "Launch day");
    assert.equal(video.description, "Launch day\nOur new mug, filmed in the studio.");
    assert.equal(video.privacyStatus, "private", "the default visibility");
    assert.equal(video.madeForKids, false);
    assert.equal(yt.hashes.get(video.id), sha(clipBytes), "the bytes arrived whole");
    assert.equal(yt.inserts - before.inserts, 1);
    assert.equal(yt.videosCreated - before.videos, 1);
    const ids = job.delivery.networkIds;
    assert.equal(ids.videoId, video.id);
    assert.match(String(ids.uploadUrl), /upload_id=/);
  });

  test("a landscape video with the account's settings: public, made for kids, watch URL; title from the post title", async () => {
    const user = yt.addUser();
    const job = ytJob(user, {
      media: [landscape],
      title: `  <Big> news: ${"word ".repeat(17)}\nsecond line`,
      settings: { privacy: "public", made_for_kids: "yes" },
    });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    assert.equal(result.postUrl, `https://www.youtube.com/watch?v=${result.networkPostId}`);
    const video = yt.videos.get(result.networkPostId)!;
    assert.equal(video.privacyStatus, "public");
    assert.equal(video.madeForKids, true);
    assert.equal(video.title, `‹Big› news: ${"word ".repeat(17).trim()}`, "the first line, no < >");
  });

  test("20 MiB in 8 MiB chunks with 308 + Range; a chunk YouTube kept only in part is re-sent from the Range", async () => {
    const user = yt.addUser();
    yt.persistNext = 5 * 256 * 1024; // YouTube keeps 1.25 MiB of the first 8 MiB chunk
    const job = ytJob(user, { media: [big] });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    assert.equal(result.postUrl, `https://www.youtube.com/shorts/${result.networkPostId}`);
    assert.equal(yt.hashes.get(result.networkPostId), sha(bigBytes), "every byte once, in order");
    const session = [...yt.sessions.values()].find((s) => s.videoId === result.networkPostId)!;
    assert.equal(session.chunkPuts, 4, "8 MiB (1.25 kept), 8, 8, 2.75 MiB");
    assert.equal(CHUNK_BYTES % (256 * 1024), 0);
  });

  test("processing outcomes: rejected and failed videos fail the delivery with YouTube's reason", async () => {
    const user = yt.addUser();
    yt.outcomeNext = { uploadStatus: "rejected", reason: "duplicate" };
    const rejected = await drive(adapter().publisher, ytJob(user, { media: [short] }));
    assert.deepEqual(rejected.result, { state: "failed", reason: "YouTube rejected the video (duplicate)." });
    const notMp4: JobMedia = {
      ...(await host.add({ name: "x.mp4", bytes: Buffer.alloc(1000, 1), kind: "video", mime: "video/mp4" })),
      width: 100,
      height: 200,
    };
    const failed = await drive(adapter().publisher, ytJob(user, { media: [notMp4] }));
    assert.deepEqual(failed.result, {
      state: "failed",
      reason: "YouTube could not process the video (invalidFile).",
    });
  });

  test("anything but one video is refused before any call", async () => {
    const user = yt.addUser();
    const before = yt.inserts;
    await assert.rejects(
      adapter().publisher.step(ytJob(user, { media: [] }), async () => {}),
      (e: unknown) => e instanceof NetworkRejectedError && /one video per post/.test(e.message),
    );
    assert.equal(yt.inserts, before);
  });
});

describe("faults", () => {
  test("worker killed mid-upload: the next step asks the session and sends only what is missing", async () => {
    const user = yt.addUser();
    const job = ytJob(user, { media: [big] });
    // The answer to the 2nd chunk is lost after YouTube stored it (the worker died waiting for it).
    yt.onChunk = (s) => {
      if (s.chunkPuts === 1)
        server.fault({ host: GOOGLE_APIS_HOST, path: YT_UPLOAD_PATH, method: "PUT" }, { kind: "lost" });
    };
    const err = await adapter()
      .publisher.step(job, saverFor(job))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    yt.onChunk = undefined;
    assert.ok(
      err instanceof NetworkTransientError && !err.afterCreate,
      "not the final chunk: nothing created",
    );
    assert.ok(job.delivery.networkIds.uploadUrl, "the session URI was saved before the first byte");
    const session = [...yt.sessions.values()].find((s) =>
      String(job.delivery.networkIds.uploadUrl).includes(s.uploadId),
    )!;
    assert.equal(session.received, 16 * MiB);
    const before = { inserts: yt.inserts, videos: yt.videosCreated };
    // A new worker (a fresh adapter) starts from the saved ids only.
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    assert.equal(yt.inserts, before.inserts, "no second session");
    assert.equal(yt.videosCreated - before.videos, 1);
    assert.equal(session.chunkPuts, 3, "chunk 3 only; chunks 1 and 2 were not sent again");
    assert.equal(yt.hashes.get(session.videoId!), sha(bigBytes));
  });

  test("lost answer to the final chunk: afterCreate, reconcile reads the video from the session, one video", async () => {
    const user = yt.addUser();
    const job = ytJob(user, { media: [short] });
    const before = { inserts: yt.inserts, videos: yt.videosCreated };
    server.fault({ host: GOOGLE_APIS_HOST, path: YT_UPLOAD_PATH, method: "PUT" }, { kind: "lost" });
    const a = adapter();
    const err = await a.publisher.step(job, saverFor(job)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof NetworkTransientError && err.afterCreate);
    assert.ok(job.delivery.networkIds.finalChunkAt);
    const r = await a.publisher.reconcile(job, saverFor(job));
    assert.equal(r.state, "processing");
    assert.ok(job.delivery.networkIds.videoId, "the id is saved as soon as it is known");
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    assert.equal(yt.videosCreated - before.videos, 1);
    assert.equal(yt.inserts - before.inserts, 1);
  });

  test("a lost final answer and the session gone: the video is found among the channel's uploads", async () => {
    const user = yt.addUser();
    const job = ytJob(user, { media: [short], caption: "Found again\nby title" });
    server.fault({ host: GOOGLE_APIS_HOST, path: YT_UPLOAD_PATH, method: "PUT" }, { kind: "lost" });
    const a = adapter();
    await assert.rejects(a.publisher.step(job, saverFor(job)), NetworkTransientError);
    const session = [...yt.sessions.values()].find((s) =>
      String(job.delivery.networkIds.uploadUrl).includes(s.uploadId),
    )!;
    yt.expireSession(session.uploadId);
    const r = await a.publisher.reconcile(job, saverFor(job));
    assert.equal(r.state, "processing");
    assert.equal(job.delivery.networkIds.videoId, session.videoId);
    assert.equal(server.hitsFor(GOOGLE_APIS_HOST, "/youtube/v3/playlistItems").length > 0, true);
  });

  test("a session that expired before its last chunk is started over (nothing could exist yet)", async () => {
    const user = yt.addUser();
    const job = ytJob(user, { media: [big] });
    let expired = false;
    yt.onChunk = (s) => {
      if (s.chunkPuts === 1 && !expired) {
        expired = true;
        yt.expireSession(s.uploadId);
      }
    };
    const before = { inserts: yt.inserts, videos: yt.videosCreated };
    const { result, states } = await drive(adapter().publisher, job);
    yt.onChunk = undefined;
    assert.equal(states[0], "uploading", "the gone session is given up");
    assert.equal(result.state, "published");
    assert.equal(yt.inserts - before.inserts, 2, "a new session");
    assert.equal(yt.videosCreated - before.videos, 1);
  });

  test("429 with Retry-After on the session start: the wait, nothing created, the next step goes on", async () => {
    const user = yt.addUser();
    const job = ytJob(user, { media: [short] });
    const before = yt.inserts;
    server.fault(
      { host: GOOGLE_APIS_HOST, path: YT_UPLOAD_PATH, method: "POST" },
      { kind: "rate_limit", retryAfterSeconds: 9 },
    );
    await assert.rejects(
      adapter().publisher.step(job, saverFor(job)),
      (e: unknown) => e instanceof NetworkRateLimitError && e.retryAfterSeconds === 9,
    );
    assert.equal(yt.inserts, before);
    assert.deepEqual(job.delivery.networkIds, {});
    assert.equal((await drive(adapter().publisher, job)).result.state, "published");
    assert.equal(yt.inserts - before, 1);
  });

  test("quota: quotaExceeded at the session start fails with the Pacific midnight; on a read it waits until then", async () => {
    const user = yt.addUser();
    yt.insertQuota = yt.insertsToday;
    try {
      const job = ytJob(user, { media: [short] });
      const reset = nextQuotaReset(new Date());
      await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
        assert.ok(e instanceof NetworkRejectedError);
        assert.match(e.message, /quota is used up \(quotaExceeded\); it resets at midnight Pacific time/);
        assert.ok(e.message.includes(reset.toISOString().slice(0, 16).replace("T", " ")), e.message);
        assert.doesNotMatch(e.message, /<a /, "no HTML");
        return true;
      });
      assert.deepEqual(job.delivery.networkIds, {}, "nothing was created");
    } finally {
      yt.insertQuota = Number.POSITIVE_INFINITY;
    }
    const job = ytJob(user, { media: [short] });
    await adapter().publisher.step(job, saverFor(job));
    server.fault(
      { host: GOOGLE_APIS_HOST, path: "/youtube/v3/videos", method: "GET" },
      {
        kind: "status",
        status: 403,
        body: {
          error: {
            code: 403,
            message: "quota",
            errors: [{ reason: "quotaExceeded", domain: "youtube.quota" }],
          },
        },
      },
    );
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRateLimitError);
      const wait = (nextQuotaReset(new Date()).getTime() - Date.now()) / 1000;
      assert.ok(Math.abs(e.retryAfterSeconds - wait) < 5, `${e.retryAfterSeconds} vs ${wait}`);
      return true;
    });
  });

  test("the channel's upload limit (uploadLimitExceeded) fails with 'publish again' in 24 hours", async () => {
    const user = yt.addUser();
    yt.uploadLimit = 0;
    try {
      const job = ytJob(user, { media: [short] });
      await assert.rejects(
        adapter().publisher.step(job, saverFor(job)),
        (e: unknown) =>
          e instanceof NetworkRejectedError && /uploadLimitExceeded.*publish again after/.test(e.message),
      );
    } finally {
      yt.uploadLimit = Number.POSITIVE_INFINITY;
    }
  });

  test("a revoked token: NetworkAuthError on publish and on refresh, no token in the message", async () => {
    const user = yt.addUser();
    yt.revokeUser(user.id);
    const job = ytJob(user, { media: [short] });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkAuthError);
      assert.ok(!e.message.includes(user.accessToken));
      return true;
    });
    await assert.rejects(adapter().oauth.refresh(tokensOf(user)), NetworkAuthError);
  });
});

describe("metrics", () => {
  test("account: subscribers and views; likes, comments, shares not given per channel; hidden subscribers -> null", async () => {
    const a = adapter();
    const open = yt.addUser({ subscriberCount: 1234, viewCount: 56_789 });
    assert.deepEqual(await a.metrics!.account(ytJob(open, { media: [] }).account), {
      followers: 1234,
      views: 56_789,
      likes: null,
      comments: null,
      shares: null,
    });
    const hidden = yt.addUser({ subscriberCount: 99, viewCount: 7, hiddenSubscriberCount: true });
    assert.deepEqual(await a.metrics!.account(ytJob(hidden, { media: [] }).account), {
      followers: null,
      views: 7,
      likes: null,
      comments: null,
      shares: null,
    });
  });

  test("post: views, likes, comments; shares, saves, reach null; hidden likes -> null; a deleted video refused", async () => {
    const user = yt.addUser();
    const { result } = await drive(adapter().publisher, ytJob(user, { media: [short] }));
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const video = yt.videos.get(result.networkPostId)!;
    video.statistics = { viewCount: 4321, likeCount: 210, commentCount: 17 };
    const account = ytJob(user, { media: [] }).account;
    const post = { networkPostId: video.id, networkIds: {}, type: "video", publishedAt: new Date() };
    assert.deepEqual(await adapter().metrics!.post(account, post), {
      views: 4321,
      reach: null,
      likes: 210,
      comments: 17,
      shares: null,
      saves: null,
    });
    video.statistics = { viewCount: 4400, likeCount: null, commentCount: 0 };
    assert.deepEqual(await adapter().metrics!.post(account, post), {
      views: 4400,
      reach: null,
      likes: null,
      comments: 0,
      shares: null,
      saves: null,
    });
    video.uploadStatus = "deleted";
    await assert.rejects(adapter().metrics!.post(account, post), NetworkRejectedError);
  });
});

describe("rules", () => {
  test("title: first line, no < >; fallback when empty", () => {
    assert.equal(
      videoTitle({ title: null, caption: "\n\n  First <line>  here \nsecond" }, "F"),
      "First ‹line› here",
    );
    assert.equal(videoTitle({ title: "  ", caption: "" }, "Video of 2026-11-24"), "Video of 2026-11-24");
    assert.equal(videoTitle({ title: "Title wins", caption: "caption" }, "F"), "Title wins");
  });

  test("description: the caption, no < >", () => {
    assert.equal(videoDescription("a <b> c"), "a ‹b› c");
    assert.equal(videoDescription("€".repeat(2000)), "€".repeat(2000), "never cut");
  });

  test("a title over 100 characters or a description over 5000 bytes fails the delivery before any upload", async () => {
    const user = yt.addUser();
    const before = server.hitsFor(GOOGLE_APIS_HOST, YT_UPLOAD_PATH).length;
    const title = await drive(
      adapter().publisher,
      ytJob(user, { media: [short], caption: `${"a".repeat(101)}\nmore` }),
    );
    assert.equal(title.result.state, "failed");
    if (title.result.state === "failed")
      assert.match(
        title.result.reason,
        /title .* is 101 characters; YouTube accepts at most 100 \(never cut\)/,
      );
    // "Launch\n" and 1665 `<`, each sent as the 3-byte `‹`: 5002 bytes.
    const description = await drive(
      adapter().publisher,
      ytJob(user, { media: [short], caption: `Launch\n${"<".repeat(1665)}` }),
    );
    assert.equal(description.result.state, "failed");
    if (description.result.state === "failed")
      assert.match(
        description.result.reason,
        /the caption \(the YouTube description\) is 5002 bytes of UTF-8; YouTube accepts at most 5000/,
      );
    assert.equal(server.hitsFor(GOOGLE_APIS_HOST, YT_UPLOAD_PATH).length, before, "nothing was uploaded");
  });

  test("permalink: Shorts are vertical and at most 180 s", () => {
    assert.equal(
      videoPermalink("x", { width: 9, height: 16, durationSeconds: 180 }),
      "https://www.youtube.com/shorts/x",
    );
    assert.equal(
      videoPermalink("x", { width: 9, height: 16, durationSeconds: 181 }),
      "https://www.youtube.com/watch?v=x",
    );
    assert.equal(
      videoPermalink("x", { width: 16, height: 9, durationSeconds: 10 }),
      "https://www.youtube.com/watch?v=x",
    );
    assert.equal(
      videoPermalink("x", { width: 10, height: 10, durationSeconds: 10 }),
      "https://www.youtube.com/watch?v=x",
    );
    assert.equal(
      videoPermalink("x", { width: null, height: null, durationSeconds: 10 }),
      "https://www.youtube.com/watch?v=x",
    );
  });

  test("the quota day starts at midnight in Los Angeles (PST and PDT)", () => {
    assert.equal(nextQuotaReset(new Date("2026-11-24T07:59:59Z")).toISOString(), "2026-11-24T08:00:00.000Z");
    assert.equal(nextQuotaReset(new Date("2026-11-24T08:00:00Z")).toISOString(), "2026-11-25T08:00:00.000Z");
    assert.equal(nextQuotaReset(new Date("2026-07-01T12:00:00Z")).toISOString(), "2026-07-02T07:00:00.000Z");
    // The DST change day (8 March 2026 is 23 hours long in Los Angeles).
    assert.equal(nextQuotaReset(new Date("2026-03-08T12:00:00Z")).toISOString(), "2026-03-09T07:00:00.000Z");
  });
});
