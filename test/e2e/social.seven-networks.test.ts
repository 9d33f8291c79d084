/**
 * The social networks end to end (docs/social.md "Testing against fakes") with the provider-shaped fakes of
 * all seven networks (test/fakes/, reached through SOCIAL_HTTP_OVERRIDE) and the live adapters:
 * 1. in one headless Chromium session the owner (Pro plan) connects Instagram, Facebook (a Page chosen on the
 *    picker), TikTok, YouTube (videos made public on /settings/social), LinkedIn (the organization page chosen
 *    on the author picker, so LinkedIn has metrics), Pinterest (two boards listed from the API, one chosen on
 *    /settings/social) and X: seven connected live accounts;
 * 2. the official MCP SDK client, authorized through the real OAuth flow, creates posts and publishes one
 *    suitable post to each tool-publishable network with publish_post, approved in the browser (Instagram,
 *    LinkedIn, Pinterest: an image; Facebook, X: text; YouTube: a vertical short video); TikTok gets a video
 *    through /review (privacy, consent, Publish). Every delivery reaches `published` with the permalink of the
 *    network object the fake created, and each fake counted exactly one post;
 * 3. the fakes' counters are set, the metrics sync runs (syncAnalytics), and get_account_analytics,
 *    get_post_analytics and get_best_performing_content answer exactly those numbers, `source: "network"`,
 *    null + `missing` for what a network does not report, coverage `partial` or `complete` accordingly, and
 *    the ranking by views.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Page } from "playwright-core";
import { syncAnalytics } from "../../src/domain/analytics/sync.ts";
import { createMediaAsset } from "../../src/domain/media/media.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { listSocialAccounts, openAccount } from "../../src/domain/social/accounts.ts";
import { runDueDeliveries } from "../../src/domain/social/engine.ts";
import type { Network } from "../../src/providers/social/types.ts";
import { facebookFake } from "../fakes/facebook.ts";
import { instagramFake } from "../fakes/instagram.ts";
import { LI_ORGANIZATION_APP_SCOPES, linkedinFake } from "../fakes/linkedin.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { PIN_API_HOST, pinterestFake } from "../fakes/pinterest.ts";
import { networkSamples } from "../fakes/samples.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { tiktokFake } from "../fakes/tiktok.ts";
import { xFake } from "../fakes/x.ts";
import { youtubeFake } from "../fakes/youtube.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { launchBrowser, openSignedIn, requireChromium } from "../helpers/browser.ts";
import { authorizeThroughBrowser } from "../helpers/oauth-flow.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";

requireChromium();

const NETWORKS = ["facebook", "instagram", "linkedin", "pinterest", "tiktok", "x", "youtube"] as const;
/** The networks publish_post reaches (TikTok goes through /review). */
const TOOL_NETWORKS = NETWORKS.filter((n) => n !== "tiktok");

const server = await startFakeNetworks();
// Processing finishes at the first status read: slower processing is covered by each adapter's own tests.
const ig = instagramFake(server, FAKE_APPS.instagram);
const fb = facebookFake(server, FAKE_APPS.facebook);
const tt = tiktokFake(server, { ...FAKE_APPS.tiktok, processingPolls: 0, postIdPolls: 0 });
const yt = youtubeFake(server, { ...FAKE_APPS.youtube, processingPolls: 0 });
// An app granted the Community Management API, so the member's page can be connected (LINKEDIN_ORGANIZATIONS).
const li = linkedinFake(server, {
  ...FAKE_APPS.linkedin,
  processingPolls: 0,
  appScopes: LI_ORGANIZATION_APP_SCOPES,
});
const pin = pinterestFake(server, { ...FAKE_APPS.pinterest, processingPolls: 0 });
const x = xFake(server, { ...FAKE_APPS.x, processingPolls: 0 });
// The delivery engine's waits (a network's next poll, Retry-After) pass at once on this clock and move it.
const app = await startTestApp({
  clock: new TestClock({ skipWaits: true }),
  worker: true,
  env: {
    ...HIGH_LIMITS,
    ...liveNetworkEnv(server, NETWORKS),
    LINKEDIN_ORGANIZATIONS: "true",
    // Six publish_post requests (approval budget 5 a minute) and polling reads within one minute.
    RATE_LIMIT_APPROVAL: "50",
    RATE_LIMIT_READS: "1000",
  },
});
const browser = await launchBrowser();
const samples = await networkSamples();
const me = await app.user({ plan: "pro", workspace: "Seven Networks Studio" });
const owner: Owner = { userId: me.user_id, workspaceId: me.workspace_id };
const db = app.ctx.db;

// The people who consent at each network (each fake's consent page consents for the user added last).
const igUser = ig.addUser({ username: "seven.insta" });
const fbUser = fb.addUser({ name: "Sam Seven", pages: ["Seven Bakery", "Seven Blog"] });
const ttCreator = tt.addCreator({ username: "seven.tok", nickname: "Seven Tok" });
const ytUser = yt.addUser({ title: "Seven Tube", customUrl: "@seventube" });
const liMember = li.addMember({ name: "Sam Seven", pages: [{ name: "Seven Goods" }] });
const pinUser = pin.addUser({ username: "sevenpins", boards: ["Kitchen", "Launch day"] });
const xUser = x.addUser({ username: "seven_x" });

const SETTINGS = `${app.url}/settings/social`;
const TERMINAL = ["published", "failed", "outcome_unknown", "needs_review"];

interface Envelope {
  status: string;
  operation_id?: string;
  approval_url?: string;
  data?: any;
  error?: { code: string; message: string };
}

interface DeliveryItem {
  delivery_id: string;
  post_id: string;
  social_account_id: string;
  network: Network;
  status: string;
  post_url: string | null;
  reason: string | null;
  published_at: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every `everyMs` until it returns a value other than undefined, or fails after `timeoutMs`. */
async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Envelope> {
  const out = await client.callTool({ name, arguments: args });
  const env = out.structuredContent as Envelope;
  assert.ok(env, `${name} answered without structured content: ${JSON.stringify(out)}`);
  return env;
}

/** `call`, asserting the tool answered `succeeded`; returns its data. */
async function data(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const env = await call(client, name, args);
  assert.equal(env.status, "succeeded", `${name}: ${JSON.stringify(env)}`);
  return env.data;
}

/** Stores `file` in the service's media storage as an asset of the owner (as uploads and renders do). */
async function storedAsset(
  file: string,
  kind: "image" | "video",
  size: {
    width: number;
    height: number;
    durationSeconds?: number;
    frameRate?: number;
    videoCodec?: string;
    audioCodec?: string;
  },
): Promise<string> {
  const bytes = await readFile(file);
  const storageKey = app.ctx.providers.storage.newKey(kind === "video" ? "mp4" : "jpg");
  await app.ctx.providers.storage.putBytes(storageKey, bytes);
  const asset = await createMediaAsset(db, owner, {
    kind,
    mimeType: kind === "video" ? "video/mp4" : "image/jpeg",
    bytes: bytes.length,
    storageKey,
    source: kind === "video" ? "generated" : "upload",
    ...size,
  });
  return asset.asset_id;
}

/**
 * A video post as generation leaves it (no tool creates video posts): the sample 9:16 MP4 (1080x1920,
 * 30 fps H.264/AAC, 4 s), approved.
 */
async function videoPost(caption: string): Promise<string> {
  const asset = await storedAsset(samples.mp4, "video", {
    width: 1080,
    height: 1920,
    durationSeconds: 4,
    frameRate: 30,
    videoCodec: "h264",
    audioCodec: "aac",
  });
  const [row] = await db("posts")
    .insert({
      user_id: owner.userId,
      workspace_id: owner.workspaceId,
      type: "video",
      status: "approved",
      caption,
      media_asset_ids: JSON.stringify([asset]),
    })
    .returning("id");
  return row.id;
}

/** Clicks Connect for `network` on /settings/social; consent at the fake comes straight back. */
async function connect(page: Page, network: Network): Promise<void> {
  await page.goto(SETTINGS);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social" && u.searchParams.get("connected") === "1"),
    page.click(`button[data-connect="${network}"]`),
  ]);
}

/** Connect for a network that lists several authors or Pages: picks the one labelled `choice`. */
async function connectPicking(page: Page, network: Network, choice: string): Promise<void> {
  await page.goto(SETTINGS);
  await Promise.all([
    page.waitForURL((u) => u.pathname.startsWith("/settings/social/pick/")),
    page.click(`button[data-connect="${network}"]`),
  ]);
  await page.locator("label", { hasText: choice }).locator("input").check();
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social" && u.searchParams.get("connected") === "1"),
    page.click('button[type="submit"]'),
  ]);
}

/** Saves `values` in the settings form of the account row of `network` on /settings/social. */
async function saveAccountSettings(page: Page, network: Network, values: Record<string, string>) {
  await page.goto(SETTINGS);
  const row = page.locator(`tr[data-network="${network}"]`);
  for (const [key, value] of Object.entries(values))
    await row.locator(`select[name="${key}"]`).selectOption(value);
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get("saved") === "1"),
    row.locator("button", { hasText: "Save defaults" }).click(),
  ]);
}

/** Opens an approval page as the signed-in owner and approves. */
async function approve(page: Page, approvalUrl: string): Promise<void> {
  await page.goto(approvalUrl);
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get("result") === "approved"),
    page.click('button[name="decision"][value="approve"]'),
  ]);
}

test("seven networks: connect in Chromium, publish through MCP and /review, sync, exact analytics", async (t) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openSignedIn(page, SETTINGS, me);
  const accountOf = new Map<Network, string>();
  let chosenBoard = "";

  await t.test("connect all seven networks on /settings/social", async () => {
    await connect(page, "instagram");
    await connectPicking(page, "facebook", "Seven Bakery");
    await connect(page, "tiktok");
    await connect(page, "youtube");
    await connectPicking(page, "linkedin", "Seven Goods");
    await connect(page, "pinterest");
    await connect(page, "x");

    const accounts = await listSocialAccounts(db, owner);
    assert.deepEqual(accounts.map((a) => a.network).sort(), [...NETWORKS]);
    for (const a of accounts) {
      assert.equal(a.status, "connected", a.network);
      accountOf.set(a.network as Network, a.social_account_id);
    }
    const expectedIds: Record<Network, string> = {
      instagram: igUser.userId,
      facebook: fbUser.pages[0]!.id,
      tiktok: ttCreator.openId,
      youtube: ytUser.channel!.id,
      linkedin: liMember.organizations[0]!.urn,
      pinterest: pinUser.id,
      x: xUser.id,
    };
    for (const n of NETWORKS) {
      const opened = await openAccount(db, app.ctx.sealer, accountOf.get(n)!);
      assert.equal(opened.mode, "live", `${n} connected live`);
      assert.equal(opened.networkAccountId, expectedIds[n], `${n}: the network's own account`);
    }
    assert.equal(
      (await openAccount(db, app.ctx.sealer, accountOf.get("facebook")!)).tokens.accessToken,
      fbUser.pages[0]!.accessToken,
      "the chosen Page's token",
    );
    // Pinterest: two boards, so none was saved at connect; the choices come from GET /v5/boards.
    const pinterestId = accountOf.get("pinterest")!;
    assert.equal((await openAccount(db, app.ctx.sealer, pinterestId)).settings.board_id, undefined);
    const boardsBefore = server.hitsFor(PIN_API_HOST, "/v5/boards", "GET").length;
    await page.goto(SETTINGS);
    assert.equal(await page.locator('tr[data-account-id][data-status="connected"]').count(), 7);
    assert.ok(server.hitsFor(PIN_API_HOST, "/v5/boards", "GET").length > boardsBefore, "boards listed live");
    const options = await page
      .locator('tr[data-network="pinterest"] select[name="board_id"] option')
      .evaluateAll((els) => (els as HTMLOptionElement[]).map((o) => [o.value, o.textContent]));
    assert.deepEqual(
      options,
      pinUser.boards.map((b) => [b.id, b.name]),
    );
    chosenBoard = pinUser.boards[1]!.id;
    await saveAccountSettings(page, "pinterest", { board_id: chosenBoard });
    assert.equal((await openAccount(db, app.ctx.sealer, pinterestId)).settings.board_id, chosenBoard);
    // YouTube: videos public instead of the default private.
    await saveAccountSettings(page, "youtube", { privacy: "public" });
    assert.equal(
      (await openAccount(db, app.ctx.sealer, accountOf.get("youtube")!)).settings.privacy,
      "public",
    );
  });

  const { provider } = await authorizeThroughBrowser(app, browser, me, {
    scope:
      "read:social_accounts read:content create:content publish:content read:schedules read:jobs read:analytics",
  });
  const client = new Client({ name: "seven-networks-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(app.resource), { authProvider: provider }));
  t.after(() => client.close());

  const postOf = new Map<Network, string>();
  const delivered = new Map<Network, DeliveryItem>();

  await t.test("publish one post per network: six through publish_post, TikTok through /review", async () => {
    const listed = await data(client, "list_connected_social_accounts", {});
    assert.deepEqual(
      listed.items.map((a: { network: string; status: string }) => `${a.network}:${a.status}`).sort(),
      NETWORKS.map((n) => `${n}:connected`),
    );

    const image = () => storedAsset(samples.jpg, "image", { width: 1080, height: 1350 });
    const imagePost = async (caption: string) =>
      (
        await data(client, "create_image_post", {
          media_asset_ids: [await image()],
          caption,
          status: "draft",
          idempotency_key: randomUUID(),
        })
      ).post_id as string;
    const textPost = async (caption: string) =>
      (await data(client, "create_text_post", { caption, status: "draft", idempotency_key: randomUUID() }))
        .post_id as string;
    postOf.set("instagram", await imagePost("Seven networks: the new mug on Instagram"));
    postOf.set("facebook", await textPost("Seven networks: the bakery opens at eight on Saturday"));
    postOf.set("linkedin", await imagePost("Seven networks: Seven Goods is hiring bakers"));
    postOf.set("pinterest", await imagePost("Seven networks: a kitchen shelf idea"));
    postOf.set("x", await textPost("Seven networks: fresh bread in ten minutes"));
    postOf.set("youtube", await videoPost("Seven networks: how we bake, in a short"));
    postOf.set("tiktok", await videoPost("Seven networks: the mug on TikTok"));

    const operations: string[] = [];
    for (const n of TOOL_NETWORKS) {
      const asked = await call(client, "publish_post", {
        post_id: postOf.get(n),
        social_account_ids: [accountOf.get(n)],
        idempotency_key: randomUUID(),
      });
      assert.equal(asked.status, "approval_required", `${n}: ${JSON.stringify(asked)}`);
      await approve(page, asked.approval_url!);
      operations.push(asked.operation_id!);
    }

    // TikTok: the approved video picked on /review, privacy chosen, consent given, Publish.
    const tiktokPost = postOf.get("tiktok")!;
    await page.goto(`${app.url}/review`);
    await Promise.all([
      page.waitForURL((u) => u.pathname === `/review/posts/${tiktokPost}`),
      page.click(`a[href^="/review/posts/${tiktokPost}?"]`),
    ]);
    assert.equal(await page.textContent("#creator-nickname"), "Seven Tok");
    await page.check("#privacy-PUBLIC_TO_EVERYONE");
    await page.check("#consent");
    await Promise.all([
      page.waitForURL((u) => u.pathname.startsWith("/review/deliveries/")),
      page.click("#publish"),
    ]);
    // The status page refreshes itself until TikTok has published the post.
    await page.waitForSelector('#delivery-state[data-state="published"]', { timeout: 60_000 });
    const tiktokUrl = await page.getAttribute("#post-url", "href");

    // Drive the deliveries (the worker's publish runs the engine for 20 s; the minute pass is not waited for).
    const items = await waitFor("seven finished deliveries", async () => {
      await runDueDeliveries(app.ctx);
      const all = (await data(client, "list_deliveries", { limit: 50 })).items as DeliveryItem[];
      const done = all.length === 7 && all.every((d) => TERMINAL.includes(d.status));
      return done ? all : undefined;
    });
    for (const d of items) {
      assert.equal(d.status, "published", `${d.network}: ${d.reason}`);
      assert.equal(d.post_id, postOf.get(d.network), `${d.network}: its own post`);
      assert.equal(d.social_account_id, accountOf.get(d.network));
      assert.ok(d.published_at);
      delivered.set(d.network, d);
    }
    assert.equal(delivered.get("tiktok")!.post_url, tiktokUrl, "the /review page shows the delivery's URL");
    for (const id of operations) {
      const job = await waitFor(`publish_post operation ${id}`, async () => {
        const status = await data(client, "get_job_status", { operation_id: id });
        return ["approved", "queued", "running"].includes(status.status) ? undefined : status;
      });
      assert.equal(job.status, "succeeded", JSON.stringify(job));
    }

    // Each delivery's post_url is the permalink of the object the network created, and each network got one
    // post. Instagram and Facebook answer a permalink; the others give an id, which the network's documented
    // URL pattern turns into the permalink.
    const url = (n: Network) => delivered.get(n)!.post_url;
    const igMedia = [...ig.media.values()];
    assert.equal(igMedia.length, 1);
    assert.equal(url("instagram"), igMedia[0]!.permalink);
    assert.equal(igMedia[0]!.media_type, "IMAGE");
    assert.equal(ig.publishes, 1);

    const fbPosts = [...fb.posts.values()];
    assert.equal(fbPosts.length, 1);
    assert.equal(url("facebook"), fbPosts[0]!.permalink_url);
    assert.equal(fbPosts[0]!.pageId, fbUser.pages[0]!.id, "on the chosen Page");
    assert.equal(fb.publishes, 1);

    const ttVideos = [...tt.videos.values()];
    assert.equal(ttVideos.length, 1);
    assert.equal(url("tiktok"), `https://www.tiktok.com/@seven.tok/video/${ttVideos[0]!.id}`);
    assert.equal(tt.published, 1);
    assert.equal([...tt.publishes.values()][0]!.postInfo.privacy_level, "PUBLIC_TO_EVERYONE");

    const ytVideos = [...yt.videos.values()];
    assert.equal(ytVideos.length, 1);
    assert.equal(url("youtube"), `https://www.youtube.com/shorts/${ytVideos[0]!.id}`, "a vertical Short");
    assert.equal(ytVideos[0]!.privacyStatus, "public", "the visibility chosen on /settings/social");
    assert.equal(yt.videosCreated, 1);

    const liPosts = [...li.posts.values()];
    assert.equal(liPosts.length, 1);
    assert.equal(url("linkedin"), `https://www.linkedin.com/feed/update/${liPosts[0]!.urn}`);
    assert.equal(liPosts[0]!.author, liMember.organizations[0]!.urn, "posted as the organization");
    assert.ok(liPosts[0]!.content?.media, "with its image");
    assert.equal(li.postsCreated, 1);

    const pins = [...pin.pins.values()];
    assert.equal(pins.length, 1);
    assert.equal(url("pinterest"), `https://www.pinterest.com/pin/${pins[0]!.id}/`);
    assert.equal(pins[0]!.boardId, chosenBoard, "on the board chosen on /settings/social");
    assert.equal(pins[0]!.mediaType, "image");
    assert.equal(pin.created, 1);

    const tweets = [...x.tweets.values()];
    assert.equal(tweets.length, 1);
    assert.equal(url("x"), `https://x.com/seven_x/status/${tweets[0]!.id}`);
    assert.equal(x.created, 1);
  });

  await t.test("sync the networks' counters; the analytics tools answer exactly them", async () => {
    assert.equal(delivered.size, 7, "every network published");
    // Account counters.
    ig.followers.set(igUser.userId, 1200);
    fb.followers.set(fbUser.pages[0]!.id, 800);
    tt.stats.set(ttCreator.openId, {
      follower_count: 15_000,
      following_count: 12,
      likes_count: 90_000,
      video_count: 1,
    });
    ytUser.channel!.subscriberCount = 2300;
    ytUser.channel!.viewCount = 120_000;
    const org = liMember.organizations[0]!;
    org.followers = 650;
    org.totals = {
      impressionCount: 20_000,
      uniqueImpressionsCount: 14_000,
      likeCount: 900,
      commentCount: 60,
      shareCount: 40,
      clickCount: 300,
      engagement: 0.07,
    };
    pinUser.followerCount = 430;
    pinUser.monthlyViews = 99_999; // a rolling 30-day count: never reported as lifetime views
    xUser.followers = 310;
    // Post counters.
    ig.insights.set([...ig.media.keys()][0]!, {
      views: 5000,
      reach: 4100,
      likes: 310,
      comments: 42,
      shares: 17,
      saved: 29,
    });
    fb.postStats.set([...fb.posts.keys()][0]!, {
      reactions: 95,
      comments: 12,
      shares: 7,
      views: 3000,
      reach: 2500,
    });
    Object.assign([...tt.videos.values()][0]!, {
      view_count: 40_000,
      like_count: 2100,
      comment_count: 130,
      share_count: 75,
    });
    [...yt.videos.values()][0]!.statistics = { viewCount: 8000, likeCount: 400, commentCount: 25 };
    li.postStatistics.set([...li.posts.keys()][0]!, {
      impressionCount: 2000,
      uniqueImpressionsCount: 1500,
      likeCount: 80,
      commentCount: 9,
      shareCount: 4,
      clickCount: 30,
      engagement: 0.05,
    });
    const pinDay = delivered.get("pinterest")!.published_at!.slice(0, 10);
    pin.setAnalytics([...pin.pins.keys()][0]!, {
      daily: { [pinDay]: { IMPRESSION: 1200, SAVE: 33, PIN_CLICK: 50, OUTBOUND_CLICK: 20 } },
      lifetime: { TOTAL_REACTIONS: 21, TOTAL_COMMENTS: 3 },
    });
    x.setMetrics([...x.tweets.keys()][0]!, {
      impression_count: 6500,
      like_count: 140,
      reply_count: 11,
      retweet_count: 9,
      quote_count: 3,
      bookmark_count: 6,
    });

    const report = await syncAnalytics(app.ctx);
    for (const n of NETWORKS) {
      assert.deepEqual(
        report.networks[n],
        { accounts_synced: 1, accounts_failed: 0, posts_synced: 1, posts_failed: 0 },
        n,
      );
    }

    // The time of this run (or of a later one: the worker's daily sync may fire at midnight New York).
    const assertSyncedBy = (syncedAt: string | null, what: string) =>
      assert.ok(syncedAt && syncedAt >= report.synced_at, `${what}: synced_at ${syncedAt}`);

    const ACCOUNT_MISSING = ["views", "likes", "comments", "shares"];
    const expectedAccounts: Record<Network, Record<string, unknown>> = {
      instagram: {
        followers: 1200,
        views: null,
        likes: null,
        comments: null,
        shares: null,
        missing: ACCOUNT_MISSING,
      },
      facebook: {
        followers: 800,
        views: null,
        likes: null,
        comments: null,
        shares: null,
        missing: ACCOUNT_MISSING,
      },
      tiktok: {
        followers: 15_000,
        views: null,
        likes: 90_000,
        comments: null,
        shares: null,
        missing: ["views", "comments", "shares"],
      },
      youtube: {
        followers: 2300,
        views: 120_000,
        likes: null,
        comments: null,
        shares: null,
        missing: ["likes", "comments", "shares"],
      },
      linkedin: { followers: 650, views: 20_000, likes: 900, comments: 60, shares: 40, missing: [] },
      pinterest: {
        followers: 430,
        views: null,
        likes: null,
        comments: null,
        shares: null,
        missing: ACCOUNT_MISSING,
      },
      x: { followers: 310, views: null, likes: null, comments: null, shares: null, missing: ACCOUNT_MISSING },
    };
    const accounts = (await data(client, "get_account_analytics", {})).accounts as Array<Record<string, any>>;
    assert.deepEqual(accounts.map((a) => a.network).sort(), [...NETWORKS]);
    for (const a of accounts) {
      const n = a.network as Network;
      const want = expectedAccounts[n];
      assert.deepEqual(
        {
          social_account_id: a.social_account_id,
          followers: a.followers,
          views: a.views,
          likes: a.likes,
          comments: a.comments,
          shares: a.shares,
          missing: a.missing,
          coverage: a.coverage,
          source: a.source,
          sync_error: a.sync_error,
        },
        {
          social_account_id: accountOf.get(n),
          ...want,
          coverage: (want.missing as string[]).length === 0 ? "complete" : "partial",
          source: "network",
          sync_error: null,
        },
        `get_account_analytics ${n}`,
      );
      assertSyncedBy(a.synced_at, n);
    }
    assert.equal(accounts.find((a) => a.network === "linkedin")!.coverage, "complete");

    const expectedPosts: Record<Network, Record<string, unknown>> = {
      instagram: { views: 5000, reach: 4100, likes: 310, comments: 42, shares: 17, saves: 29, missing: [] },
      facebook: {
        views: 3000,
        reach: 2500,
        likes: 95,
        comments: 12,
        shares: 7,
        saves: null,
        missing: ["saves"],
      },
      tiktok: {
        views: 40_000,
        reach: null,
        likes: 2100,
        comments: 130,
        shares: 75,
        saves: null,
        missing: ["reach", "saves"],
      },
      youtube: {
        views: 8000,
        reach: null,
        likes: 400,
        comments: 25,
        shares: null,
        saves: null,
        missing: ["reach", "shares", "saves"],
      },
      linkedin: {
        views: 2000,
        reach: 1500,
        likes: 80,
        comments: 9,
        shares: 4,
        saves: null,
        missing: ["saves"],
      },
      pinterest: {
        views: 1200,
        reach: null,
        likes: 21,
        comments: 3,
        shares: null,
        saves: 33,
        missing: ["reach", "shares"],
      },
      x: { views: 6500, reach: null, likes: 140, comments: 11, shares: 12, saves: 6, missing: ["reach"] },
    };
    const coverageOf = (n: Network) =>
      (expectedPosts[n].missing as string[]).length === 0 ? "complete" : "partial";
    for (const n of NETWORKS) {
      const out = await data(client, "get_post_analytics", { post_id: postOf.get(n) });
      assert.equal(out.post_id, postOf.get(n));
      assert.equal(out.deliveries.length, 1, n);
      const d = out.deliveries[0];
      assert.deepEqual(
        {
          delivery_id: d.delivery_id,
          network: d.network,
          views: d.views,
          reach: d.reach,
          likes: d.likes,
          comments: d.comments,
          shares: d.shares,
          saves: d.saves,
          missing: d.missing,
          coverage: d.coverage,
          source: d.source,
          sync_error: d.sync_error,
        },
        {
          delivery_id: delivered.get(n)!.delivery_id,
          network: n,
          ...expectedPosts[n],
          coverage: coverageOf(n),
          source: "network",
          sync_error: null,
        },
        `get_post_analytics ${n}`,
      );
      assertSyncedBy(d.synced_at, n);
    }
    assert.equal(coverageOf("instagram"), "complete");

    // Ranked by views: the top 5 of the seven, then each network on its own (every delivery has views).
    const best = await data(client, "get_best_performing_content", {});
    assert.equal(best.ranked_by, "views");
    assert.deepEqual(best.window, { published_from: null, published_to: null });
    const item = (n: Network) => {
      const published_at = new Date(delivered.get(n)!.published_at!).toISOString();
      const views = expectedPosts[n].views;
      const coverage = coverageOf(n);
      return {
        post_id: postOf.get(n),
        views,
        published_at,
        coverage,
        deliveries: [
          {
            delivery_id: delivered.get(n)!.delivery_id,
            network: n,
            views,
            published_at,
            coverage,
            source: "network",
          },
        ],
      };
    };
    const strip = (items: Array<Record<string, unknown>>) =>
      items.map(({ caption_excerpt: _c, ...rest }) => rest);
    assert.deepEqual(
      strip(best.items),
      (["tiktok", "youtube", "x", "instagram", "facebook"] as const).map(item),
    );
    assert.equal(best.items[0].caption_excerpt, "Seven networks: the mug on TikTok");
    for (const n of NETWORKS) {
      const one = await data(client, "get_best_performing_content", { network: n });
      assert.deepEqual(strip(one.items), [item(n)], `get_best_performing_content network=${n}`);
    }
  });
  await context.close();
});
