/**
 * The live Pinterest adapter against the provider-shaped fake (test/fakes/pinterest.ts) through
 * SOCIAL_HTTP_OVERRIDE: connect (consent redirect, code exchange by HTTP Basic, continuous refresh token,
 * the account and its only board), the board choice of /settings/social (bookmark paging, at most 250),
 * image, carousel and video Pins (media registration, the multipart S3 upload, status polling), the board
 * rules, the faults (a worker killed mid-upload, a lost or failed create answer reconciled from the board's
 * Pins, 429 with Retry-After or X-RateLimit-Reset, a revoked token) and the counters.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import sharp from "sharp";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import {
  type DeliveryJob,
  type JobMedia,
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
  type TokenSet,
} from "../../../src/providers/social/network.ts";
import { pinterestAdapter } from "../../../src/providers/social/pinterest/adapter.ts";
import { analyticsWindow } from "../../../src/providers/social/pinterest/metrics.ts";
import { drive, jobFor, saverFor, startMediaHost } from "../../fakes/jobs.ts";
import { PIN_API_HOST, PIN_UPLOAD_HOST, type PinterestUser, pinterestFake } from "../../fakes/pinterest.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { startFakeNetworks } from "../../fakes/server.ts";

const credentials = { clientId: "pin-app-id", clientSecret: "pin-app-secret" };
const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const adapter = (secret = credentials.clientSecret) =>
  pinterestAdapter(
    { ...credentials, clientSecret: secret },
    {
      publicBaseUrl: "http://127.0.0.1",
      sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
      now: () => new Date(),
      http,
    },
  );
const pin = pinterestFake(server, credentials);
const host = await startMediaHost();
const samples = await networkSamples();
const slides: JobMedia[] = [];
for (let i = 1; i <= 5; i++)
  slides.push(await host.add({ name: `s${i}.jpg`, file: samples.jpg, kind: "image", mime: "image/jpeg" }));
const square = await host.add({
  name: "square.jpg",
  bytes: await sharp({ create: { width: 1000, height: 1000, channels: 3, background: "#c33" } })
    .jpeg()
    .toBuffer(),
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
const notVideo = await host.add({ name: "fake.mp4", file: samples.png, kind: "video", mime: "video/mp4" });

const tokensOf = (u: PinterestUser): TokenSet => ({
  accessToken: u.accessToken,
  refreshToken: u.refreshToken,
  scopes: ["boards:read", "boards:write", "pins:read", "pins:write", "user_accounts:read"],
});

function pinJob(
  u: PinterestUser,
  input: { type: string; media: JobMedia[]; caption?: string; title?: string | null; board?: string | null },
): DeliveryJob {
  return jobFor({
    network: "pinterest",
    networkAccountId: u.id,
    handle: u.username,
    tokens: tokensOf(u),
    caption: input.caption ?? "Our new mug\nStoneware, 350 ml, dishwasher safe.",
    title: input.title ?? null,
    type: input.type,
    media: input.media,
    settings: input.board === null ? {} : { board_id: input.board ?? u.boards[0]!.id },
  });
}

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe("connect", () => {
  test("consent redirect, code exchange by HTTP Basic, continuous refresh, the account and its only board", async () => {
    const u = pin.addUser({ username: "mugs.studio", boards: ["Mugs"] });
    const a = adapter();
    const redirectUri = "https://app.example.test/settings/social/callback/pinterest";
    const url = new URL(a.oauth.authorizeUrl({ state: "st-1", redirectUri }));
    assert.equal(url.origin + url.pathname, "https://www.pinterest.com/oauth/");
    assert.equal(url.searchParams.get("response_type"), "code");
    assert.equal(url.searchParams.get("client_id"), credentials.clientId);
    assert.equal(
      url.searchParams.get("scope"),
      "boards:read,boards:write,pins:read,pins:write,user_accounts:read",
    );
    const res = await fetch(http.overrideUrl(url.toString()), { redirect: "manual" });
    assert.equal(res.status, 302);
    const back = new URL(res.headers.get("location")!);
    assert.equal(back.searchParams.get("state"), "st-1");
    const code = back.searchParams.get("code")!;
    await assert.rejects(
      adapter("wrong-secret").oauth.exchangeCode({ code, redirectUri }),
      NetworkAuthError,
      "the app's credentials go by HTTP Basic and are checked",
    );
    const tokens = await a.oauth.exchangeCode({ code, redirectUri });
    assert.ok(tokens.refreshToken?.startsWith("pinr_"));
    const days = (d: Date | undefined) => (d!.getTime() - Date.now()) / 86_400_000;
    assert.ok(days(tokens.expiresAt) > 29.9 && days(tokens.expiresAt) <= 30, "30-day access token");
    assert.ok(days(tokens.refreshExpiresAt) > 59.9, "60-day refresh token");
    assert.deepEqual(tokens.scopes, [
      "boards:read",
      "boards:write",
      "pins:read",
      "pins:write",
      "user_accounts:read",
    ]);
    const [account] = await a.oauth.accounts(tokens);
    assert.equal(account!.networkAccountId, u.id);
    assert.equal(account!.handle, "mugs.studio");
    assert.equal(account!.displayName, "mugs.studio Co");
    assert.match(account!.avatarUrl!, /^https:\/\/i\.pinimg\.com\//);
    assert.deepEqual(account!.settings, { board_id: u.boards[0]!.id }, "the only board is the default");
    const next = await a.oauth.refresh(tokens);
    assert.notEqual(next.accessToken, tokens.accessToken);
    assert.notEqual(next.refreshToken, tokens.refreshToken, "a new continuous refresh token");
    assert.deepEqual(next.scopes, tokens.scopes);
    await assert.rejects(a.oauth.refresh(tokens), NetworkAuthError, "the used refresh token is refused");
    await assert.rejects(a.oauth.exchangeCode({ code, redirectUri }), NetworkAuthError, "a used code");
  });

  test("an account with several boards gets no default; a denied consent comes back as an error", async () => {
    const u = pin.addUser({ boards: ["A", "B"] });
    const [account] = await adapter().oauth.accounts(tokensOf(u));
    assert.equal(account!.settings, undefined);
    pin.denyNext = true;
    const url = adapter().oauth.authorizeUrl({ state: "s", redirectUri: "https://app.example.test/cb" });
    const back = new URL(
      (await fetch(http.overrideUrl(url), { redirect: "manual" })).headers.get("location")!,
    );
    assert.equal(back.searchParams.get("error"), "access_denied");
  });
});

describe("board choice (/settings/social)", () => {
  test("every board as an option, secret ones marked; the only board is the default, several have none", async () => {
    const a = adapter();
    const one = pin.addUser({ boards: ["Kitchen"] });
    const [field] = await a.accountSettings!(pinJob(one, { type: "image", media: [] }).account);
    assert.equal(field!.key, "board_id");
    assert.deepEqual(field!.options, [[one.boards[0]!.id, "Kitchen"]]);
    assert.equal(field!.defaultValue, one.boards[0]!.id);
    const many = pin.addUser({ boards: ["Kitchen", "Garden"] });
    pin.addBoard(many, "Drafts", "SECRET");
    const [f2] = await a.accountSettings!(pinJob(many, { type: "image", media: [] }).account);
    assert.deepEqual(
      f2!.options.map(([, label]) => label),
      ["Kitchen", "Garden", "Drafts (secret)"],
    );
    assert.equal(f2!.defaultValue, undefined, "no default: the user must choose");
  });

  test("boards are read page by page with the bookmark, at most 250", async () => {
    const a = adapter();
    const u = pin.addUser({ boards: Array.from({ length: 260 }, (_, i) => `Board ${i + 1}`) });
    pin.pageLimit = 40;
    try {
      const before = server.hitsFor(PIN_API_HOST, "/v5/boards").length;
      const [field] = await a.accountSettings!(pinJob(u, { type: "image", media: [] }).account);
      assert.equal(field!.options.length, 250);
      assert.equal(field!.options[249]![1], "Board 250");
      assert.equal(server.hitsFor(PIN_API_HOST, "/v5/boards").length - before, 7, "7 pages of at most 40");
    } finally {
      pin.pageLimit = 250;
    }
  });
});

describe("publish", () => {
  test("an image Pin: title from the first line, the caption, the product link, the permalink", async () => {
    const u = pin.addUser({ username: "img" });
    const job = pinJob(u, { type: "image", media: [slides[0]!] });
    job.post.productUrl = "https://shop.example/products/mug";
    const before = pin.created;
    const { result, states } = await drive(adapter().publisher, job);
    assert.deepEqual(states, ["published"]);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    assert.equal(result.postUrl, `https://www.pinterest.com/pin/${result.networkPostId}/`);
    const p = pin.pins.get(result.networkPostId)!;
    assert.equal(p.title, "Our new mug");
    assert.equal(p.description, "Our new mug\nStoneware, 350 ml, dishwasher safe.");
    assert.equal(p.link, "https://shop.example/products/mug");
    assert.equal(p.boardId, u.boards[0]!.id);
    assert.equal(p.mediaType, "image");
    assert.deepEqual(p.imageUrls, [slides[0]!.publicUrl()]);
    assert.equal(pin.created - before, 1);
    const ids = job.delivery.networkIds;
    assert.equal(ids.pinId, result.networkPostId);
    assert.equal(ids.boardId, u.boards[0]!.id);
    assert.ok(typeof ids.pinRequestedAt === "string", "the armed marker was saved");
  });

  test("the post's title wins; no product, no link; a title over 100 characters is refused, never cut", async () => {
    const u = pin.addUser();
    const job = pinJob(u, { type: "image", media: [slides[1]!], title: `${"T".repeat(100)}\nsecond line` });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    assert.equal(pin.pins.get(result.networkPostId)!.title, "T".repeat(100));
    assert.equal(pin.pins.get(result.networkPostId)!.link, null);
    // A delivery that did not pass the call-time check (an automation's) fails before anything is created.
    const before = pin.created;
    const long = pinJob(u, { type: "image", media: [slides[1]!], title: "T".repeat(120) });
    const refused = await drive(adapter().publisher, long);
    assert.equal(refused.result.state, "failed");
    if (refused.result.state === "failed")
      assert.match(
        refused.result.reason,
        /title .* is 120 characters; Pinterest accepts at most 100 \(never cut\)/,
      );
    assert.equal(pin.created, before);
    // Without a post title, a caption whose first line is over 100 characters gives no title (not a cut one).
    const caption = `${"c".repeat(120)} and more`;
    const untitled = await drive(
      adapter().publisher,
      pinJob(u, { type: "image", media: [slides[1]!], caption }),
    );
    assert.equal(untitled.result.state, "published");
    if (untitled.result.state === "published")
      assert.equal(pin.pins.get(untitled.result.networkPostId)!.title ?? "", "");
  });

  test("a carousel of 5 same-size images; images of different sizes are refused by Pinterest", async () => {
    const u = pin.addUser();
    const { result } = await drive(adapter().publisher, pinJob(u, { type: "carousel", media: slides }));
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const p = pin.pins.get(result.networkPostId)!;
    assert.equal(p.mediaType, "multiple_images");
    assert.deepEqual(
      p.imageUrls,
      slides.map((m) => m.publicUrl()),
      "in order",
    );
    const mixed = pinJob(u, { type: "carousel", media: [slides[0]!, square] });
    const err = await errorOf(adapter().publisher.step(mixed, saverFor(mixed)));
    assert.ok(err instanceof NetworkRejectedError);
    assert.match(err.message, /same dimensions/);
    assert.equal(mixed.delivery.networkIds.pinRequestedAt, null, "a refusal disarms the marker");
  });

  test("a video Pin: registered, uploaded as multipart to S3, polled until succeeded, cover from the first frame", async () => {
    const u = pin.addUser();
    const uploads = pin.uploads;
    const job = pinJob(u, { type: "video", media: [clip] });
    const { result, states } = await drive(adapter().publisher, job);
    // register + upload; one status read still processing; succeeded -> the Pin.
    assert.deepEqual(states, ["processing", "processing", "published"]);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const p = pin.pins.get(result.networkPostId)!;
    assert.equal(p.mediaType, "video");
    assert.equal(p.mediaId, job.delivery.networkIds.mediaId);
    assert.deepEqual(p.cover, { keyFrameTime: 0 });
    assert.equal(pin.uploads - uploads, 1);
    const media = pin.media.get(p.mediaId!)!;
    assert.equal(media.status, "succeeded");
    assert.equal(media.bytes!.length, clip.bytes, "the whole file arrived");
    assert.equal(server.hitsFor(PIN_UPLOAD_HOST, "/", "POST").at(-1)!.status, 204);
  });

  test("a video with an image: the image is the cover; a file that is not a video fails", async () => {
    const u = pin.addUser();
    const { result } = await drive(
      adapter().publisher,
      pinJob(u, { type: "video", media: [clip, slides[2]!] }),
    );
    assert.equal(result.state, "published");
    if (result.state === "published")
      assert.deepEqual(pin.pins.get(result.networkPostId)!.cover, { url: slides[2]!.publicUrl() });
    const bad = await drive(adapter().publisher, pinJob(u, { type: "video", media: [notVideo] }));
    assert.deepEqual(bad.result, { state: "failed", reason: "Pinterest could not process the video." });
  });

  test("the board: none chosen among several fails naming /settings/social; the only board is used", async () => {
    const several = pin.addUser({ username: "undecided", boards: ["A", "B"] });
    const before = pin.created;
    const none = await drive(
      adapter().publisher,
      pinJob(several, { type: "image", media: [slides[0]!], board: null }),
    );
    assert.equal(none.result.state, "failed");
    if (none.result.state === "failed")
      assert.equal(
        none.result.reason,
        "the Pinterest account @undecided has no board chosen: choose the board for its Pins on /settings/social.",
      );
    const empty = pin.addUser({ username: "boardless", boards: [] });
    const e = await drive(
      adapter().publisher,
      pinJob(empty, { type: "image", media: [slides[0]!], board: null }),
    );
    assert.equal(e.result.state, "failed");
    if (e.result.state === "failed")
      assert.match(e.result.reason, /has no board: create a board on Pinterest/);
    assert.equal(pin.created - before, 0, "nothing created");
    const single = pin.addUser({ boards: ["Only"] });
    const job = pinJob(single, { type: "image", media: [slides[0]!], board: null });
    const ok = await drive(adapter().publisher, job);
    assert.equal(ok.result.state, "published");
    assert.equal(job.delivery.networkIds.boardId, single.boards[0]!.id);
  });

  test("a chosen board that no longer exists fails with a reason pointing at /settings/social", async () => {
    const u = pin.addUser();
    const job = pinJob(u, { type: "image", media: [slides[0]!], board: "999999999999999999" });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "failed");
    if (result.state === "failed")
      assert.match(result.reason, /no longer exists: choose another board on \/settings\/social/);
  });
});

describe("faults", () => {
  test("worker killed mid-upload: the file had arrived, the next step continues from the saved ids, no second upload", async () => {
    const u = pin.addUser();
    const uploads = pin.uploads;
    const created = pin.created;
    const registrations = server.hitsFor(PIN_API_HOST, "/v5/media", "POST").length;
    const job = pinJob(u, { type: "video", media: [clip] });
    server.fault({ host: PIN_UPLOAD_HOST, path: "/", method: "POST" }, { kind: "lost" });
    const err = await errorOf(adapter().publisher.step(job, saverFor(job)));
    assert.ok(err instanceof NetworkTransientError && !err.afterCreate);
    const saved = structuredClone(job.delivery.networkIds);
    assert.ok(saved.mediaId && !saved.uploadedAt, "the media id was saved before the upload");
    // A new worker starts from the saved ids only.
    const resumed = pinJob(u, { type: "video", media: [clip] });
    resumed.delivery.networkIds = saved;
    resumed.delivery.state = "processing";
    assert.deepEqual(await adapter().publisher.reconcile(resumed, saverFor(resumed)), {
      state: "not_created",
    });
    const { result } = await drive(adapter().publisher, resumed);
    assert.equal(result.state, "published");
    assert.equal(pin.uploads - uploads, 1, "one upload");
    assert.equal(
      server.hitsFor(PIN_API_HOST, "/v5/media", "POST").length - registrations,
      1,
      "one registration",
    );
    assert.equal(pin.created - created, 1, "one Pin");
  });

  test("an upload that never arrived is registered and sent again (the first registration is left unused)", async () => {
    const u = pin.addUser();
    const uploads = pin.uploads;
    const job = pinJob(u, { type: "video", media: [clip] });
    server.fault(
      { host: PIN_UPLOAD_HOST, path: "/", method: "POST" },
      { kind: "status", status: 503, body: "<Error><Code>SlowDown</Code></Error>" },
    );
    assert.ok((await errorOf(adapter().publisher.step(job, saverFor(job)))) instanceof NetworkTransientError);
    const first = job.delivery.networkIds.mediaId;
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    assert.notEqual(job.delivery.networkIds.mediaId, first);
    assert.equal(pin.media.get(String(first))!.status, "registered");
    assert.equal(pin.uploads - uploads, 1);
  });

  test("lost answer to POST /v5/pins: outcome unknown, reconcile adopts the Pin found on the board, never a second Pin", async () => {
    const u = pin.addUser();
    const before = pin.created;
    const creates = server.hitsFor(PIN_API_HOST, "/v5/pins", "POST").length;
    const job = pinJob(u, { type: "carousel", media: slides.slice(0, 3) });
    server.fault({ host: PIN_API_HOST, path: "/v5/pins", method: "POST" }, { kind: "lost" });
    const a = adapter();
    const err = await errorOf(a.publisher.step(job, saverFor(job)));
    assert.ok(err instanceof NetworkTransientError && err.afterCreate, "afterCreate transient error");
    assert.equal(pin.created - before, 1, "the fake created it");
    const r = await a.publisher.reconcile(job, saverFor(job));
    assert.equal(r.state, "published");
    if (r.state !== "published") return;
    assert.equal(r.networkPostId, pin.pinsOf(u.id)[0]!.id);
    assert.equal((await a.publisher.step(job, saverFor(job))).state, "published");
    assert.equal(pin.created - before, 1, "still one Pin");
    assert.equal(server.hitsFor(PIN_API_HOST, "/v5/pins", "POST").length - creates, 1, "one create sent");
  });

  test("a create that failed with a 5xx: reconcile finds nothing on the board, the Pin is created once", async () => {
    const u = pin.addUser();
    const before = pin.created;
    const job = pinJob(u, { type: "image", media: [slides[3]!] });
    server.fault(
      { host: PIN_API_HOST, path: "/v5/pins", method: "POST" },
      { kind: "status", status: 502, body: { code: 0, message: "Bad gateway" } },
    );
    const a = adapter();
    const err = await errorOf(a.publisher.step(job, saverFor(job)));
    assert.ok(err instanceof NetworkTransientError && err.afterCreate);
    assert.deepEqual(await a.publisher.reconcile(job, saverFor(job)), { state: "not_created" });
    assert.equal(job.delivery.networkIds.pinRequestedAt, null, "disarmed after looking");
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    assert.equal(pin.created - before, 1);
  });

  test("the armed marker without a Pin id: a plain step looks on the board first and adopts the Pin", async () => {
    const u = pin.addUser();
    const job = pinJob(u, { type: "image", media: [slides[4]!] });
    server.fault({ host: PIN_API_HOST, path: "/v5/pins", method: "POST" }, { kind: "lost" });
    await errorOf(adapter().publisher.step(job, saverFor(job)));
    const before = pin.created;
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    assert.equal(pin.created - before, 0, "adopted, not created again");
  });

  test("429 with Retry-After (or X-RateLimit-Reset): the wait, nothing created, the next step publishes once", async () => {
    const u = pin.addUser();
    const before = pin.created;
    const job = pinJob(u, { type: "image", media: [slides[0]!] });
    server.fault(
      { host: PIN_API_HOST, path: "/v5/pins", method: "POST" },
      {
        kind: "rate_limit",
        retryAfterSeconds: 7,
        body: { code: 8, message: "This request exceeded a rate limit." },
      },
    );
    const a = adapter();
    const err = await errorOf(a.publisher.step(job, saverFor(job)));
    assert.ok(err instanceof NetworkRateLimitError);
    assert.equal(err.retryAfterSeconds, 7);
    assert.equal(job.delivery.networkIds.pinRequestedAt, null, "disarmed: the 429 created nothing");
    server.fault(
      { host: PIN_API_HOST, path: "/v5/boards" },
      {
        kind: "status",
        status: 429,
        headers: { "x-ratelimit-reset": "42" },
        body: { code: 8, message: "slow" },
      },
    );
    const err2 = await errorOf(a.accountSettings!(job.account));
    assert.ok(err2 instanceof NetworkRateLimitError);
    assert.equal(err2.retryAfterSeconds, 42);
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    assert.equal(pin.created - before, 1);
  });

  test("a revoked token: NetworkAuthError with a safe message, the refresh refused too", async () => {
    const u = pin.addUser();
    pin.revokeUser(u.id);
    const job = pinJob(u, { type: "image", media: [slides[0]!] });
    const err = await errorOf(adapter().publisher.step(job, saverFor(job)));
    assert.ok(err instanceof NetworkAuthError);
    assert.match(err.message, /Authentication failed/);
    assert.ok(!err.message.includes(u.accessToken));
    await assert.rejects(adapter().oauth.refresh(tokensOf(u)), NetworkAuthError);
  });
});

describe("metrics", () => {
  test("account: followers from user_account; monthly views are not lifetime views (null)", async () => {
    const u = pin.addUser({ followerCount: 1234, monthlyViews: 56789 });
    const counters = await adapter().metrics!.account(pinJob(u, { type: "image", media: [] }).account);
    assert.deepEqual(counters, { followers: 1234, views: null, likes: null, comments: null, shares: null });
  });

  test("a Pin: impressions and saves summed from its publish date, reactions and comments lifetime, the rest null", async () => {
    const u = pin.addUser();
    const { result } = await drive(adapter().publisher, pinJob(u, { type: "image", media: [slides[0]!] }));
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    pin.setAnalytics(result.networkPostId, {
      daily: {
        [day(4)]: { IMPRESSION: 999, SAVE: 99 }, // before the Pin was published: outside the window
        [day(2)]: { IMPRESSION: 120, SAVE: 4, PIN_CLICK: 9 },
        [day(1)]: { IMPRESSION: 80, SAVE: 3 },
        [day(0)]: { IMPRESSION: 5, SAVE: 0 },
      },
      lifetime: { TOTAL_REACTIONS: 17, TOTAL_COMMENTS: 2 },
    });
    const account = pinJob(u, { type: "image", media: [] }).account;
    const post = {
      networkPostId: result.networkPostId,
      networkIds: {},
      type: "image",
      publishedAt: new Date(Date.now() - 3 * 86_400_000),
    };
    assert.deepEqual(await adapter().metrics!.post(account, post), {
      views: 205,
      reach: null,
      likes: 17,
      comments: 2,
      shares: null,
      saves: 7,
    });
    pin.setAnalytics(result.networkPostId, { daily: {} });
    assert.deepEqual(await adapter().metrics!.post(account, post), {
      views: 0,
      reach: null,
      likes: null,
      comments: null,
      shares: null,
      saves: 0,
    });
  });

  test("a video Pin asks the video metrics too; the window never reaches more than 90 days back", async () => {
    const u = pin.addUser();
    const { result } = await drive(adapter().publisher, pinJob(u, { type: "video", media: [clip] }));
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    const old = new Date(Date.now() - 200 * 86_400_000);
    const counters = await adapter().metrics!.post(pinJob(u, { type: "video", media: [] }).account, {
      networkPostId: result.networkPostId,
      networkIds: {},
      type: "video",
      publishedAt: old,
    });
    assert.equal(counters.views, 0);
    const now = new Date("2026-05-31T12:00:00Z");
    assert.deepEqual(analyticsWindow(new Date("2025-01-01T00:00:00Z"), now), {
      start: "2026-03-02",
      end: "2026-05-31",
    });
    assert.deepEqual(analyticsWindow(new Date("2026-05-20T23:00:00Z"), now), {
      start: "2026-05-20",
      end: "2026-05-31",
    });
  });
});
