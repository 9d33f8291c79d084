/**
 * The live LinkedIn adapter against the provider-shaped fake (test/fakes/linkedin.ts) through
 * SOCIAL_HTTP_OVERRIDE: connect (authorize URL and scopes, code exchange, 60-day token and refresh, the member
 * and the pages they administer as authors), publishing every post type (text with little-text escapes,
 * one image, multi-image, video in parts with ETags, as a member and as a page) with the `LinkedIn-Version`
 * from config, the faults (worker killed mid-upload, lost create answer reconciled from the author's posts,
 * 503 on create, 429 with Retry-After and the daily throttle, a sunset version, revoked token), the metrics
 * (page numbers exactly as the fake serves them, nulls for members and saves), and through the service: the
 * connect flow with the author picker, and the delivery engine (a lost create published once, a revoked token
 * making the account `needs_reconnect`).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import { DEFAULT_LINKEDIN_VERSION } from "../../../src/config/index.ts";
import type { Owner } from "../../../src/domain/owner.ts";
import { openAccount, upsertConnectedAccount } from "../../../src/domain/social/accounts.ts";
import {
  ConnectError,
  finishConnect,
  pickAccounts,
  startConnect,
} from "../../../src/domain/social/connect.ts";
import { advanceDeliveries } from "../../../src/domain/social/engine.ts";
import { publishPost } from "../../../src/domain/social/publish.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { linkedinAdapter } from "../../../src/providers/social/linkedin/adapter.ts";
import { escapeLittleText, unescapeLittleText } from "../../../src/providers/social/linkedin/little-text.ts";
import { LINKEDIN_POSTS_PER_CALL } from "../../../src/providers/social/linkedin/metrics.ts";
import { LINKEDIN_CAPABILITIES, LINKEDIN_SCOPES } from "../../../src/providers/social/linkedin/oauth.ts";
import {
  type DeliveryJob,
  type JobMedia,
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
  NO_POST_COUNTERS,
  type TokenSet,
} from "../../../src/providers/social/network.ts";
import { drive, jobFor, saverFor, startMediaHost } from "../../fakes/jobs.ts";
import {
  LI_API_HOST,
  LI_APP_SCOPES,
  LI_ORGANIZATION_APP_SCOPES,
  LI_WWW_HOST,
  type LinkedInMember,
  linkedinFake,
} from "../../fakes/linkedin.ts";
import { FAKE_APPS, liveNetworkEnv } from "../../fakes/live-env.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { startTestApp, TestClock } from "../../helpers/app.ts";
import { HIGH_LIMITS } from "../../oauth/support.ts";
import { approvedTextPost } from "../../helpers/first-comment.ts";

const credentials = FAKE_APPS.linkedin;
const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const samples = await networkSamples();
const clipBytes = await readFile(samples.mp4);
// Parts of a third of the sample video: its upload goes in 3 parts, like a 12 MB video at LinkedIn's 4 MB.
// An app granted the Community Management API (the page scopes); tests of an app without it say so.
const li = linkedinFake(server, {
  ...credentials,
  partBytes: Math.ceil(clipBytes.length / 3),
  appScopes: LI_ORGANIZATION_APP_SCOPES,
});
const host = await startMediaHost();
const jpgs: JobMedia[] = [];
for (let i = 1; i <= 3; i++)
  jpgs.push(await host.add({ name: `li-${i}.jpg`, file: samples.jpg, kind: "image", mime: "image/jpeg" }));
const png = await host.add({ name: "li.png", file: samples.png, kind: "image", mime: "image/png" });
const clip = await host.add({
  name: "li-clip.mp4",
  file: samples.mp4,
  kind: "video",
  mime: "video/mp4",
  durationSeconds: 4,
});
const notAVideo = await host.add({
  name: "li-fake.mp4",
  file: samples.jpg,
  kind: "video",
  mime: "video/mp4",
});

const adapter = (options: { version?: string; now?: () => Date; organizations?: boolean } = {}) =>
  linkedinAdapter(credentials, {
    publicBaseUrl: "http://127.0.0.1",
    sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
    now: options.now ?? (() => new Date()),
    http,
    linkedinVersion: options.version,
    linkedinOrganizations: options.organizations,
  });

const tokensOf = (m: LinkedInMember): TokenSet => ({
  accessToken: m.accessToken,
  refreshToken: m.refreshToken,
  scopes: m.scopes,
});

/** A job posting as `author` (the member's URN, or one of their pages). */
function liJob(
  m: LinkedInMember,
  input: { caption?: string; title?: string; type: string; media?: JobMedia[]; author?: string },
): DeliveryJob {
  const author = input.author ?? m.urn;
  const job = jobFor({
    network: "linkedin",
    networkAccountId: author,
    handle: m.name,
    tokens: tokensOf(m),
    caption: input.caption ?? "",
    title: input.title ?? null,
    type: input.type,
    media: input.media ?? [],
  });
  job.account.metadata = {
    authorUrn: author,
    authorType: author.includes(":person:") ? "person" : "organization",
  };
  return job;
}

const urnOf = (job: DeliveryJob) => job.delivery.networkIds.postUrn as string;

describe("connect", () => {
  test("authorize URL, code exchange (60-day token, refresh token), the member and their pages as authors, refresh", async () => {
    const m = li.addMember({
      name: "Ada Lovelace",
      pages: [{ name: "Analytical Engines", vanityName: "analytical-engines" }, { name: "Bernoulli Blog" }],
    });
    const a = adapter({ organizations: true });
    assert.equal(a.oauth.pickAccounts, true, "the user picks the authors after consent");
    const redirectUri = "https://app.example.test/settings/social/callback/linkedin";
    const url = new URL(a.oauth.authorizeUrl({ state: "st-1", redirectUri }));
    assert.equal(`${url.origin}${url.pathname}`, "https://www.linkedin.com/oauth/v2/authorization");
    assert.equal(url.searchParams.get("client_id"), credentials.clientId);
    assert.equal(url.searchParams.get("response_type"), "code");
    assert.equal(
      url.searchParams.get("scope"),
      "openid profile w_member_social w_organization_social r_organization_social rw_organization_admin",
    );
    const res = await fetch(http.overrideUrl(url.toString()), { redirect: "manual" });
    assert.equal(res.status, 302);
    const back = new URL(res.headers.get("location")!);
    assert.equal(back.searchParams.get("state"), "st-1");
    const tokens = await a.oauth.exchangeCode({ code: back.searchParams.get("code")!, redirectUri });
    const days = (tokens.expiresAt!.getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 59 && days <= 60, "60-day member token");
    assert.ok(tokens.refreshToken && tokens.refreshExpiresAt!.getTime() > Date.now() + 300 * 86_400_000);
    assert.deepEqual(tokens.scopes, [...LINKEDIN_SCOPES]);

    const accounts = await a.oauth.accounts(tokens);
    assert.deepEqual(
      accounts.map((x) => [x.networkAccountId, x.handle, x.displayName, x.metadata?.authorUrn]),
      [
        [m.urn, "Ada Lovelace", "Ada Lovelace", m.urn],
        [m.organizations[0]!.urn, "analytical-engines", "Analytical Engines", m.organizations[0]!.urn],
        [m.organizations[1]!.urn, "bernoulli-blog", "Bernoulli Blog", m.organizations[1]!.urn],
      ],
    );
    assert.equal(accounts[0]!.avatarUrl, m.picture);
    assert.deepEqual(accounts[1]!.capabilities, LINKEDIN_CAPABILITIES);

    const next = await a.oauth.refresh(tokens);
    assert.notEqual(next.accessToken, tokens.accessToken);
    assert.deepEqual(next.scopes, tokens.scopes);
    assert.equal((await a.oauth.accounts(next)).length, 3, "the refreshed token works");
    await assert.rejects(
      a.oauth.exchangeCode({ code: back.searchParams.get("code")!, redirectUri }),
      NetworkAuthError,
      "a used code is refused",
    );
  });

  test("by default only openid profile w_member_social are asked: an app without the page product consents", async () => {
    li.grantedScopes = LI_APP_SCOPES;
    try {
      const m = li.addMember({ name: "New App Member", pages: [{ name: "Not Asked" }] });
      const a = adapter();
      assert.deepEqual([...a.oauth.requiredScopes], ["openid", "profile", "w_member_social"]);
      const redirectUri = "https://app.example.test/cb";
      const url = new URL(a.oauth.authorizeUrl({ state: "st-3", redirectUri }));
      assert.equal(url.searchParams.get("scope"), "openid profile w_member_social");
      const back = new URL(
        (await fetch(http.overrideUrl(url.toString()), { redirect: "manual" })).headers.get("location")!,
      );
      assert.equal(back.searchParams.get("error"), null);
      const tokens = await a.oauth.exchangeCode({ code: back.searchParams.get("code")!, redirectUri });
      assert.deepEqual(tokens.scopes, ["openid", "profile", "w_member_social"]);
      assert.deepEqual(
        (await a.oauth.accounts(tokens)).map((x) => x.networkAccountId),
        [m.urn],
        "the member only: no page scope was granted",
      );
    } finally {
      li.grantedScopes = LI_ORGANIZATION_APP_SCOPES;
    }
  });

  test("LINKEDIN_ORGANIZATIONS=true with an app without the page product: LinkedIn refuses the whole consent", async () => {
    li.grantedScopes = LI_APP_SCOPES;
    try {
      li.addMember({ name: "Refused Member" });
      const url = adapter({ organizations: true }).oauth.authorizeUrl({
        state: "st-4",
        redirectUri: "https://app.example.test/cb",
      });
      assert.match(
        new URL(url).searchParams.get("scope")!,
        / w_organization_social r_organization_social rw_organization_admin$/,
      );
      const back = new URL(
        (await fetch(http.overrideUrl(url), { redirect: "manual" })).headers.get("location")!,
      );
      assert.equal(back.searchParams.get("error"), "unauthorized_scope_error");
      assert.equal(
        back.searchParams.get("error_description"),
        'Scope "w_organization_social" is not authorized for your application',
      );
      assert.equal(back.searchParams.get("code"), null, "no code: nothing can be exchanged");
    } finally {
      li.grantedScopes = LI_ORGANIZATION_APP_SCOPES;
    }
  });

  test("without the page scopes only the member is listed; no refresh token means reconnect", async () => {
    const m = li.addMember({
      name: "Solo Member",
      pages: [{ name: "Hidden Page" }],
      scopes: ["openid", "profile", "w_member_social"],
    });
    const aclsBefore = server.hitsFor(LI_API_HOST, "/rest/organizationAcls").length;
    const accounts = await adapter().oauth.accounts({ accessToken: m.accessToken, scopes: m.scopes });
    assert.deepEqual(
      accounts.map((x) => x.networkAccountId),
      [m.urn],
    );
    assert.equal(server.hitsFor(LI_API_HOST, "/rest/organizationAcls").length, aclsBefore);
    await assert.rejects(
      adapter().oauth.refresh({ accessToken: m.accessToken, scopes: m.scopes }),
      NetworkAuthError,
    );
  });

  test("a cancelled consent comes back as LinkedIn's error", async () => {
    li.addMember({ name: "Cancel" });
    li.denyNext = true;
    const url = adapter().oauth.authorizeUrl({ state: "st-2", redirectUri: "https://app.example.test/cb" });
    const back = new URL(
      (await fetch(http.overrideUrl(url), { redirect: "manual" })).headers.get("location")!,
    );
    assert.equal(back.searchParams.get("error"), "user_cancelled_authorize");
    assert.equal(back.searchParams.get("code"), null);
  });
});

describe("publish", () => {
  test("text with reserved characters: escaped little text, shown as written, versioned headers from config", async () => {
    const m = li.addMember({ name: "Texter" });
    const before = li.postsCreated;
    const caption = "Launch (beta) #news @team [x] {y} <z> a_b*c~d|e\\f";
    const job = liJob(m, { caption, type: "text" });
    li.versionsSeen.clear();
    const { result, states } = await drive(adapter({ version: "202609" }).publisher, job);
    assert.deepEqual(states, ["published"]);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    assert.match(result.networkPostId, /^urn:li:share:\d{19}$/);
    assert.equal(result.postUrl, `https://www.linkedin.com/feed/update/${result.networkPostId}`);
    const post = li.posts.get(result.networkPostId)!;
    assert.equal(post.text, caption, "the post shows the caption as written");
    assert.equal(post.commentary, escapeLittleText(caption));
    assert.equal(unescapeLittleText(post.commentary), caption);
    assert.equal(post.author, m.urn);
    assert.equal(post.visibility, "PUBLIC");
    assert.equal(post.lifecycleState, "PUBLISHED");
    assert.deepEqual(post.distribution, {
      feedDistribution: "MAIN_FEED",
      targetEntities: [],
      thirdPartyDistributionChannels: [],
    });
    assert.equal(post.content, undefined);
    assert.deepEqual([...li.versionsSeen], ["202609"], "LinkedIn-Version from config on every call");
    assert.equal(li.postsCreated - before, 1);
  });

  test("without a configured version the default is sent; calls without the headers are refused like LinkedIn does", async () => {
    const m = li.addMember({ name: "Default Version" });
    li.versionsSeen.clear();
    const { result } = await drive(adapter().publisher, liJob(m, { caption: "hello", type: "text" }));
    assert.equal(result.state, "published");
    assert.deepEqual([...li.versionsSeen], [DEFAULT_LINKEDIN_VERSION]);
    const bare = await fetch(http.overrideUrl("https://api.linkedin.com/rest/posts"), {
      method: "POST",
      headers: { authorization: `Bearer ${m.accessToken}`, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(bare.status, 400);
    assert.equal(((await bare.json()) as { code: string }).code, "VERSION_MISSING");
  });

  test("one image: initializeUpload, bytes PUT, content.media", async () => {
    const m = li.addMember({ name: "Imager" });
    const job = liJob(m, { caption: "one image", type: "image", media: [jpgs[0]!] });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    const post = li.posts.get(urnOf(job))!;
    const image = (job.delivery.networkIds.images as Array<{ image: string }>)[0]!.image;
    assert.deepEqual(post.content, { media: { id: image } });
    assert.equal(li.images.get(image)!.owner, m.urn);
  });

  test("multi-image (linkedin_carousel: images): 3 images (JPEG and PNG) in order in content.multiImage", async () => {
    const m = li.addMember({ name: "Gallery" });
    const job = liJob(m, { caption: "three", type: "carousel", media: [jpgs[0]!, png, jpgs[1]!] });
    job.account.settings = { linkedin_carousel: "images" };
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    const saved = job.delivery.networkIds.images as Array<{ image: string; uploaded: boolean }>;
    assert.equal(saved.length, 3);
    assert.ok(saved.every((s) => s.uploaded));
    assert.deepEqual(li.posts.get(urnOf(job))!.content, {
      multiImage: { images: saved.map((s) => ({ id: s.image })) },
    });
  });

  test("video: initializeUpload, 3 parts with their ETags, finalizeUpload, polled until AVAILABLE, then the post", async () => {
    const m = li.addMember({ name: "Filmer" });
    const initBefore = server.hitsFor(LI_API_HOST, "/rest/videos", "POST").length;
    const job = liJob(m, { caption: "a clip", title: "Our clip", type: "video", media: [clip] });
    const { result, states } = await drive(adapter().publisher, job);
    assert.deepEqual(states, ["processing", "published"]);
    assert.equal(result.state, "published");
    if (result.state !== "published") return;
    assert.match(result.networkPostId, /^urn:li:ugcPost:\d{19}$/);
    const saved = job.delivery.networkIds.videoUpload as {
      video: string;
      etags: string[];
      finalized: boolean;
    };
    assert.equal(saved.etags.length, 3);
    assert.equal(saved.finalized, true);
    const video = li.videos.get(saved.video)!;
    assert.deepEqual(
      saved.etags,
      video.parts.map((p) => p.etag),
    );
    assert.equal(video.status, "AVAILABLE");
    assert.deepEqual(li.posts.get(result.networkPostId)!.content, {
      media: { id: saved.video, title: "Our clip" },
    });
    assert.equal(
      server.hitsFor(LI_API_HOST, "/rest/videos", "POST").length - initBefore,
      2,
      "initialize + finalize",
    );
  });

  test("a video LinkedIn cannot process fails with its reason", async () => {
    const m = li.addMember({ name: "Broken Video" });
    const before = li.postsCreated;
    const { result } = await drive(adapter().publisher, liJob(m, { type: "video", media: [notAVideo] }));
    assert.equal(result.state, "failed");
    if (result.state === "failed")
      assert.match(result.reason, /could not process the video \(Invalid video file\)/);
    assert.equal(li.postsCreated, before);
  });

  test("as an organization page", async () => {
    const m = li.addMember({ name: "Page Admin", pages: [{ name: "Acme" }] });
    const org = m.organizations[0]!.urn;
    const job = liJob(m, { caption: "from the page", type: "image", media: [jpgs[2]!], author: org });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    const post = li.posts.get(urnOf(job))!;
    assert.equal(post.author, org);
    const image = post.content!.media!.id;
    assert.equal(li.images.get(image)!.owner, org);
  });
});

describe("faults", () => {
  test("worker killed mid-upload: the next step resumes from the saved ETags, nothing uploaded or created twice", async () => {
    const m = li.addMember({ name: "Crashy" });
    const before = li.postsCreated;
    const initBefore = server.hitsFor(LI_API_HOST, "/rest/videos", "POST").length;
    const job = liJob(m, { caption: "resume me", type: "video", media: [clip] });
    const save = saverFor(job);
    // The worker dies right after the first part's ETag was saved.
    const dying = async (patch: Record<string, unknown>) => {
      await save(patch);
      const etags = (patch.videoUpload as { etags?: string[] } | undefined)?.etags;
      if (etags?.length === 1) throw new Error("worker killed");
    };
    await assert.rejects(adapter().publisher.step(job, dying), /worker killed/);
    const saved = structuredClone(job.delivery.networkIds);
    const key = li.videos.get((saved.videoUpload as { video: string }).video)!.key;
    assert.equal(server.hitsFor(LI_WWW_HOST, `/dms-uploads/sp/${key}/uploadedVideo/0`, "PUT").length, 1);
    assert.equal(server.hitsFor(LI_WWW_HOST, `/dms-uploads/sp/${key}/uploadedVideo/1`, "PUT").length, 0);

    const resumed = liJob(m, { caption: "resume me", type: "video", media: [clip] });
    resumed.delivery.networkIds = saved;
    resumed.delivery.state = "uploading";
    assert.deepEqual(await adapter().publisher.reconcile(resumed, saverFor(resumed)), {
      state: "not_created",
    });
    const { result } = await drive(adapter().publisher, resumed);
    assert.equal(result.state, "published");
    for (const part of [0, 1, 2])
      assert.equal(
        server.hitsFor(LI_WWW_HOST, `/dms-uploads/sp/${key}/uploadedVideo/${part}`, "PUT").length,
        1,
        `part ${part} sent once`,
      );
    assert.equal(
      server.hitsFor(LI_API_HOST, "/rest/videos", "POST").length - initBefore,
      2,
      "one initialize, one finalize",
    );
    assert.equal(li.postsCreated - before, 1);
  });

  test("lost answer to the create (page): outcome unknown, the armed post found among the page's posts and adopted", async () => {
    const m = li.addMember({ name: "Lost Page Admin", pages: [{ name: "Lost Co" }] });
    const org = m.organizations[0]!.urn;
    const before = li.postsCreated;
    const postsBefore = server.hitsFor(LI_API_HOST, "/rest/posts", "POST").length;
    const job = liJob(m, { caption: "lost (answer)", type: "image", media: [jpgs[0]!], author: org });
    const a = adapter();
    const save = saverFor(job);
    server.fault({ host: LI_API_HOST, path: "/rest/posts", method: "POST" }, { kind: "lost" });
    const err = await a.publisher.step(job, save).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof NetworkTransientError && err.afterCreate, "afterCreate transient error");
    assert.ok(job.delivery.networkIds.armedAt, "armed before the create");
    assert.equal(job.delivery.networkIds.postUrn, undefined);
    assert.equal(li.postsCreated - before, 1, "LinkedIn did create it");
    const r = await a.publisher.reconcile(job, save);
    assert.equal(r.state, "published");
    if (r.state !== "published") return;
    assert.equal(li.posts.get(r.networkPostId)!.text, "lost (answer)");
    assert.equal(urnOf(job), r.networkPostId, "the adopted URN is saved");
    assert.equal((await a.publisher.step(job, save)).state, "published");
    assert.equal(li.postsCreated - before, 1, "exactly one post");
    assert.equal(server.hitsFor(LI_API_HOST, "/rest/posts", "POST").length - postsBefore, 1);
  });

  test("503 on the create (page): reconcile finds nothing, not created, the retry posts exactly once", async () => {
    const m = li.addMember({ name: "Flaky", pages: [{ name: "Flaky Co" }] });
    const org = m.organizations[0]!.urn;
    const before = li.postsCreated;
    const job = liJob(m, { caption: "after a 503", type: "text", author: org });
    const a = adapter();
    server.fault(
      { host: LI_API_HOST, path: "/rest/posts", method: "POST" },
      { kind: "status", status: 503, body: { status: 503, message: "Service Unavailable" } },
    );
    const err = await a.publisher.step(job, saverFor(job)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof NetworkTransientError && err.afterCreate);
    assert.deepEqual(await a.publisher.reconcile(job, saverFor(job)), { state: "not_created" });
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    assert.equal(li.postsCreated - before, 1);
  });

  test("lost create as a member: listing the member's posts needs r_member_social", async () => {
    const before = li.postsCreated;
    // Without r_member_social (restricted): no way to look, so the delivery fails rather than posting twice.
    const plain = li.addMember({ name: "Plain Member" });
    const job = liJob(plain, { caption: "member post", type: "text" });
    server.fault({ host: LI_API_HOST, path: "/rest/posts", method: "POST" }, { kind: "lost" });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), NetworkTransientError);
    const r = await adapter().publisher.reconcile(job, saverFor(job));
    assert.equal(r.state, "failed");
    if (r.state === "failed") assert.match(r.reason, /check the LinkedIn profile before publishing again/);
    // An app LinkedIn granted r_member_social finds the post and adopts it.
    const reader = li.addMember({ name: "Reader", scopes: [...LINKEDIN_SCOPES, "r_member_social"] });
    const job2 = liJob(reader, { caption: "member post", type: "text" });
    server.fault({ host: LI_API_HOST, path: "/rest/posts", method: "POST" }, { kind: "lost" });
    await assert.rejects(adapter().publisher.step(job2, saverFor(job2)), NetworkTransientError);
    const r2 = await adapter().publisher.reconcile(job2, saverFor(job2));
    assert.equal(r2.state, "published");
    if (r2.state === "published") assert.equal(li.posts.get(r2.networkPostId)!.author, reader.urn);
    assert.equal(li.postsCreated - before, 2, "one post each, none twice");
  });

  test("429 with Retry-After on the create: waited, disarmed, then posted once", async () => {
    const m = li.addMember({ name: "Throttled" });
    const before = li.postsCreated;
    const hitsBefore = server.hitsFor(LI_API_HOST, "/rest/posts", "POST").length;
    server.fault(
      { host: LI_API_HOST, path: "/rest/posts", method: "POST" },
      { kind: "rate_limit", retryAfterSeconds: 7, body: { status: 429, message: "Too Many Requests" } },
    );
    const job = liJob(m, { caption: "after the wait", type: "text" });
    const a = adapter();
    await assert.rejects(a.publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRateLimitError);
      assert.equal(e.retryAfterSeconds, 7);
      return true;
    });
    assert.equal(job.delivery.networkIds.armedAt, null, "LinkedIn refused it: nothing to look for");
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    assert.deepEqual(
      server
        .hitsFor(LI_API_HOST, "/rest/posts", "POST")
        .slice(hitsBefore)
        .map((h) => h.status),
      [429, 201],
    );
    assert.equal(li.postsCreated - before, 1);
  });

  test("the daily throttle (429 without Retry-After) waits until the UTC day resets", async () => {
    const m = li.addMember({ name: "Daily" });
    server.fault(
      { host: LI_API_HOST, path: "/rest/images" },
      {
        kind: "status",
        status: 429,
        body: {
          status: 429,
          message: "Resource level throttle MEMBER DAY limit for calls to this resource is reached.",
        },
      },
    );
    const a = adapter({ now: () => new Date("2026-03-01T22:30:00Z") });
    const job = liJob(m, { type: "image", media: [jpgs[1]!] });
    await assert.rejects(a.publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRateLimitError);
      assert.equal(e.retryAfterSeconds, 5400, "90 minutes to 00:00 UTC");
      return true;
    });
    assert.deepEqual(job.delivery.networkIds, {}, "nothing saved");
  });

  test("a refused post (422) and a sunset LinkedIn-Version fail with LinkedIn's message", async () => {
    const m = li.addMember({ name: "Refused" });
    server.fault(
      { host: LI_API_HOST, path: "/rest/posts", method: "POST" },
      {
        kind: "status",
        status: 422,
        body: { status: 422, code: "DUPLICATE_POST", message: "Content is a duplicate of urn:li:share:123" },
      },
    );
    const job = liJob(m, { caption: "dup", type: "text" });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkRejectedError);
      assert.match(e.reason, /DUPLICATE_POST.*duplicate/);
      return true;
    });
    assert.equal(job.delivery.networkIds.armedAt, null);
    const old = liJob(m, { caption: "old version", type: "text" });
    await assert.rejects(adapter({ version: "202301" }).publisher.step(old, saverFor(old)), (e: unknown) => {
      assert.ok(e instanceof NetworkRejectedError);
      assert.match(e.reason, /version 202301.*LINKEDIN_VERSION/);
      return true;
    });
  });

  test("revoked token: NetworkAuthError with a safe message, refresh refused too", async () => {
    const m = li.addMember({ name: "Revoked" });
    li.revokeMember(m.sub);
    const job = liJob(m, { caption: "never", type: "text" });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), (e: unknown) => {
      assert.ok(e instanceof NetworkAuthError);
      assert.match(e.message, /REVOKED_ACCESS_TOKEN/);
      assert.ok(!e.message.includes(m.accessToken));
      return true;
    });
    await assert.rejects(adapter().oauth.refresh(tokensOf(m)), NetworkAuthError);
  });
});

describe("metrics", () => {
  test("a page: followers and lifetime totals, and a post's counters exactly as LinkedIn reports them", async () => {
    const m = li.addMember({ name: "Stats Admin", pages: [{ name: "Stats Co" }] });
    const org = m.organizations[0]!;
    org.followers = 1234;
    org.totals = {
      impressionCount: 9000,
      uniqueImpressionsCount: 7000,
      likeCount: 310,
      commentCount: 42,
      shareCount: 17,
      clickCount: 99,
      engagement: 0.05,
    };
    const a = adapter();
    const job = liJob(m, { caption: "measured", type: "text", author: org.urn });
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    const urn = urnOf(job);
    li.postStatistics.set(urn, {
      impressionCount: 500,
      uniqueImpressionsCount: 420,
      likeCount: 30,
      commentCount: 4,
      shareCount: 2,
      clickCount: 11,
      engagement: 0.08,
    });
    assert.deepEqual(await a.metrics!.account(job.account), {
      followers: 1234,
      views: 9000,
      likes: 310,
      comments: 42,
      shares: 17,
    });
    assert.deepEqual(
      await a.metrics!.post(job.account, {
        networkPostId: urn,
        networkIds: {},
        type: "text",
        publishedAt: new Date(),
      }),
      { views: 500, reach: 420, likes: 30, comments: 4, shares: 2, saves: null },
    );
  });

  test("a page's video post (ugcPost URN) is read with ugcPosts=List(...)", async () => {
    const m = li.addMember({ name: "Video Stats", pages: [{ name: "Video Co" }] });
    const org = m.organizations[0]!.urn;
    const a = adapter();
    const job = liJob(m, { caption: "video stats", type: "video", media: [clip], author: org });
    const { result } = await drive(a.publisher, job);
    assert.equal(result.state, "published");
    const urn = urnOf(job);
    assert.match(urn, /^urn:li:ugcPost:/);
    li.postStatistics.set(urn, {
      impressionCount: 80,
      uniqueImpressionsCount: 60,
      likeCount: 8,
      commentCount: 1,
      shareCount: 0,
      clickCount: 3,
      engagement: 0.1,
    });
    assert.deepEqual(
      await a.metrics!.post(job.account, {
        networkPostId: urn,
        networkIds: {},
        type: "video",
        publishedAt: new Date(),
      }),
      { views: 80, reach: 60, likes: 8, comments: 1, shares: 0, saves: null },
    );
  });

  test("a page's posts in batches: one call per kind of URN (shares, ugcPosts), each post its own counters", async () => {
    const m = li.addMember({ name: "Batch Stats", pages: [{ name: "Batch Co" }] });
    const org = m.organizations[0]!.urn;
    const other = li.addMember({ name: "Elsewhere", pages: [{ name: "Other Co" }] }).organizations[0]!.urn;
    const at = Date.now();
    const add = (urn: string, author: string, views: number) => {
      li.posts.set(urn, {
        urn,
        author,
        commentary: "c",
        text: "c",
        visibility: "PUBLIC",
        lifecycleState: "PUBLISHED",
        distribution: {},
        createdAt: at,
        lastModifiedAt: at,
      });
      li.postStatistics.set(urn, {
        impressionCount: views,
        uniqueImpressionsCount: views - 1,
        likeCount: 3,
        commentCount: 2,
        shareCount: 1,
        clickCount: 0,
        engagement: 0,
      });
    };
    const urns = ["urn:li:share:9101", "urn:li:ugcPost:9102", "urn:li:share:9103", "urn:li:ugcPost:9104"];
    for (const [i, urn] of urns.entries()) add(urn, org, 100 + i);
    add("urn:li:share:9105", other, 999); // another organization's post: LinkedIn leaves it out
    const a = adapter();
    const account = liJob(m, { caption: "batch", type: "text", author: org }).account;
    const post = (urn: string) => ({
      networkPostId: urn,
      networkIds: {},
      type: "text" as const,
      publishedAt: new Date(),
    });
    assert.equal(a.metrics!.postBatchSize, LINKEDIN_POSTS_PER_CALL);
    const calls = () => server.hitsFor(LI_API_HOST, "/rest/organizationalEntityShareStatistics").length;
    const before = calls();
    const read = await a.metrics!.readPostMetricsBatch!(account, [...urns, "urn:li:share:9105"].map(post));
    assert.equal(calls() - before, 2, "one call for the shares, one for the ugcPosts");
    for (const [i, urn] of urns.entries())
      assert.deepEqual(read.get(urn), {
        views: 100 + i,
        reach: 99 + i,
        likes: 3,
        comments: 2,
        shares: 1,
        saves: null,
      });
    assert.deepEqual(read.get("urn:li:share:9105"), NO_POST_COUNTERS);
    const tooMany = Array.from({ length: LINKEDIN_POSTS_PER_CALL + 1 }, (_, i) => post(`urn:li:share:${i}`));
    await assert.rejects(a.metrics!.readPostMetricsBatch!(account, tooMany), RangeError);
  });

  test("a member: every counter null (LinkedIn restricts member analytics), nothing called", async () => {
    const m = li.addMember({ name: "Member Stats" });
    const a = adapter();
    const job = liJob(m, { caption: "member", type: "text" });
    const hitsBefore = server.hits.length;
    assert.deepEqual(await a.metrics!.account(job.account), {
      followers: null,
      views: null,
      likes: null,
      comments: null,
      shares: null,
    });
    assert.deepEqual(
      await a.metrics!.post(job.account, {
        networkPostId: "urn:li:share:1",
        networkIds: {},
        type: "text",
        publishedAt: new Date(),
      }),
      { views: null, reach: null, likes: null, comments: null, shares: null, saves: null },
    );
    assert.equal(server.hits.length, hitsBefore);
  });
});

describe("through the service: connect flow and delivery engine", async () => {
  // The engine's waits (a network's next poll, Retry-After) pass at once on this clock and move it.
  const clock = new TestClock({ skipWaits: true });
  const app = await startTestApp({
    clock,
    env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["linkedin"]), LINKEDIN_ORGANIZATIONS: "true" },
  });
  const alice = await app.user({ workspace: "LinkedIn Studio" });
  const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
  const db = app.ctx.db;

  async function connect(m: LinkedInMember, author: string): Promise<string> {
    const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
      network: "linkedin",
      mode: "live",
      account: {
        networkAccountId: author,
        handle: author,
        capabilities: LINKEDIN_CAPABILITIES,
        metadata: { authorUrn: author, authorType: author.includes(":person:") ? "person" : "organization" },
      },
      tokens: {
        accessToken: m.accessToken,
        refreshToken: m.refreshToken,
        expiresAt: new Date(Date.now() + 50 * 86_400_000),
        scopes: m.scopes,
      },
      now: new Date(),
    });
    return account.social_account_id;
  }

  const approvedText = (caption: string) => approvedTextPost(app.ctx, owner, caption);

  /** Starts the service's connect flow and follows the (fake) consent page back: where it redirects. */
  async function consent(sessionHash: string): Promise<{ url: string; back: URL }> {
    const url = await startConnect(app.ctx, {
      sessionHash,
      userId: owner.userId,
      workspaceId: owner.workspaceId,
      network: "linkedin",
    });
    return { url, back: new URL((await fetch(url, { redirect: "manual" })).headers.get("location")!) };
  }

  test("connect flow: consent, the author picker (member and page), the picked page kept with its URN", async () => {
    const m = li.addMember({ name: "Picker", pages: [{ name: "Picked Page", vanityName: "picked-page" }] });
    const sessionHash = "session-linkedin";
    const { url, back } = await consent(sessionHash);
    assert.ok(
      url.startsWith(`${server.url}/www.linkedin.com/oauth/v2/authorization?`),
      "through the override",
    );
    assert.equal(back.pathname, "/settings/social/callback/linkedin");
    const outcome = await finishConnect(app.ctx, {
      network: "linkedin",
      sessionHash,
      state: back.searchParams.get("state"),
      code: back.searchParams.get("code"),
      error: undefined,
    });
    assert.equal(outcome.kind, "pick");
    if (outcome.kind !== "pick") return;
    assert.deepEqual(
      outcome.accounts.map((a) => a.displayName),
      ["Picker", "Picked Page"],
    );
    const { accounts } = await pickAccounts(app.ctx, outcome.pickId, sessionHash, [1]);
    assert.deepEqual(
      accounts.map((a) => [a.network, a.handle, a.display_name]),
      [["linkedin", "picked-page", "Picked Page"]],
    );
    const opened = await openAccount(db, app.ctx.sealer, accounts[0]!.social_account_id);
    assert.equal(opened.mode, "live");
    assert.equal(opened.networkAccountId, m.organizations[0]!.urn);
    assert.deepEqual(opened.metadata, { authorUrn: m.organizations[0]!.urn, authorType: "organization" });
    assert.ok(opened.tokens.refreshToken, "the refresh token is kept");
  });

  test("connect flow against an app without the page product: LinkedIn's unauthorized_scope_error is explained", async () => {
    li.grantedScopes = LI_APP_SCOPES;
    try {
      const sessionHash = "session-linkedin-scopes";
      const { back } = await consent(sessionHash);
      await assert.rejects(
        finishConnect(app.ctx, {
          network: "linkedin",
          sessionHash,
          state: back.searchParams.get("state"),
          code: back.searchParams.get("code"),
          error: back.searchParams.get("error"),
        }),
        (e: unknown) =>
          e instanceof ConnectError &&
          /LinkedIn refused the permissions .* Community Management API product; without it, leave LINKEDIN_ORGANIZATIONS unset/.test(
            e.message,
          ),
      );
    } finally {
      li.grantedScopes = LI_ORGANIZATION_APP_SCOPES;
    }
  });

  test("lost create answer: outcome_unknown, reconciled from the page's posts, one post, the real permalink", async () => {
    const m = li.addMember({ name: "Engine Admin", pages: [{ name: "Engine Co" }] });
    const account = await connect(m, m.organizations[0]!.urn);
    const before = li.postsCreated;
    server.fault({ host: LI_API_HOST, path: "/rest/posts", method: "POST" }, { kind: "lost" });
    const postId = await approvedText("Engine (lost) answer");
    const result = await publishPost(
      app.ctx,
      owner,
      { post_id: postId, social_account_ids: [account] },
      undefined,
    );
    await advanceDeliveries(app.ctx, [result.deliveries[0]!.delivery_id], { budgetSeconds: 60 });
    const d = await db("deliveries").where({ post_id: postId }).first();
    assert.equal(d.status, "published", d.error ?? "");
    assert.equal(li.postsCreated - before, 1);
    assert.equal(d.post_url, `https://www.linkedin.com/feed/update/${d.provider_post_id}`);
    assert.equal(li.posts.get(d.provider_post_id)!.text, "Engine (lost) answer");
  });

  test("revoked token: the account needs_reconnect and the delivery fails with a clear reason", async () => {
    const m = li.addMember({ name: "Engine Revoked" });
    const account = await connect(m, m.urn);
    li.revokeMember(m.sub);
    const postId = await approvedText("never posted");
    const result = await publishPost(
      app.ctx,
      owner,
      { post_id: postId, social_account_ids: [account] },
      undefined,
    );
    await advanceDeliveries(app.ctx, [result.deliveries[0]!.delivery_id], { budgetSeconds: 30 });
    const d = await db("deliveries").where({ post_id: postId }).first();
    assert.equal(d.status, "failed");
    assert.match(d.error, /reconnected.*credentials/);
    assert.ok(!String(d.error).includes(m.accessToken));
    assert.equal((await db("social_accounts").where({ id: account }).first()).status, "needs_reconnect");
  });
});
