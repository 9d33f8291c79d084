/**
 * YouTube through the service: the connect flow (src/domain/social/connect.ts) and the delivery engine
 * (src/domain/social/engine.ts) with the live YouTube adapter against the provider-shaped fake
 * (test/fakes/youtube.ts) reached through SOCIAL_HTTP_OVERRIDE, media read from the service's storage.
 * - connect with PKCE; a reconnect where Google sends no refresh token keeps the stored one, and the
 *   refresh pass refreshes with it;
 * - a video post published as a Short with the fake's permalink;
 * - the worker dies mid-upload: the next pass reconciles from the session's Range and sends only the rest;
 * - the answer to the final chunk is lost: outcome_unknown, reconciled, one video;
 * - 429 with Retry-After on the session start is waited out;
 * - quotaExceeded: the delivery fails naming the next quota day, and nothing retries it;
 * - a revoked token: the account needs_reconnect.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { createMediaAsset } from "../../src/domain/media/media.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { openAccount, upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { finishConnect, startConnect } from "../../src/domain/social/connect.ts";
import { advanceDeliveries, runDeliveryStep, runDueDeliveries } from "../../src/domain/social/engine.ts";
import { publishPost } from "../../src/domain/social/publish.ts";
import { refreshExpiringTokens } from "../../src/domain/social/refresh.ts";
import { YOUTUBE_CAPABILITIES } from "../../src/providers/social/youtube/oauth.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { networkSamples } from "../fakes/samples.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import {
  GOOGLE_APIS_HOST,
  GOOGLE_OAUTH_HOST,
  type GoogleUser,
  SCOPE_READONLY,
  SCOPE_UPLOAD,
  YT_UPLOAD_PATH,
  youtubeFake,
} from "../fakes/youtube.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";

const server = await startFakeNetworks();
const yt = youtubeFake(server, { ...FAKE_APPS.youtube, processingPolls: 0 });
// The engine's waits (a network's next poll, Retry-After) pass at once on this clock and move it.
const clock = new TestClock({ skipWaits: true });
const app = await startTestApp({ clock, env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["youtube"]) } });
const samples = await networkSamples();
const clip = await readFile(samples.mp4);
const alice = await app.user({ workspace: "Alice Tube" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;
const MiB = 1024 * 1024;

async function connect(user: GoogleUser): Promise<string> {
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "youtube",
    mode: "live",
    account: {
      networkAccountId: user.channel!.id,
      handle: user.channel!.customUrl.slice(1),
      capabilities: YOUTUBE_CAPABILITIES,
    },
    tokens: {
      accessToken: user.accessToken,
      refreshToken: user.refreshToken,
      expiresAt: new Date(Date.now() + 3500 * 1000),
      scopes: [SCOPE_UPLOAD, SCOPE_READONLY],
    },
    now: new Date(),
  });
  return account.social_account_id;
}

/** An approved video post of `bytes` (portrait, `seconds` long) in the service's storage. */
async function videoPost(bytes: Buffer, caption: string, seconds = 4): Promise<string> {
  const key = app.ctx.providers.storage.newKey("mp4");
  await app.ctx.providers.storage.putBytes(key, bytes);
  const asset = await createMediaAsset(db, owner, {
    kind: "video",
    mimeType: "video/mp4",
    bytes: bytes.length,
    width: 1080,
    height: 1920,
    durationSeconds: seconds,
    storageKey: key,
    source: "generated",
  });
  const [post] = await db("posts")
    .insert({
      user_id: owner.userId,
      workspace_id: owner.workspaceId,
      type: "video",
      status: "approved",
      caption,
      media_asset_ids: JSON.stringify([asset.asset_id]),
    })
    .returning("id");
  return post.id;
}

async function publish(postId: string, accountId: string): Promise<string> {
  const r = await publishPost(
    app.ctx,
    owner,
    { post_id: postId, social_account_ids: [accountId] },
    undefined,
  );
  return r.deliveries[0]!.delivery_id;
}

const delivery = (id: string) => db("deliveries").where({ id }).first();
const sessionOf = (d: { network_ids: { uploadUrl?: string } }) =>
  [...yt.sessions.values()].find((s) => String(d.network_ids.uploadUrl).includes(s.uploadId))!;

test("connect with PKCE; a reconnect without a refresh token keeps the stored one, which still refreshes", async () => {
  const user = yt.addUser({ title: "Alice Tube", customUrl: "@alicetube" });
  const sessionHash = "s".repeat(64);
  const consent = async () => {
    const url = await startConnect(app.ctx, {
      sessionHash,
      userId: owner.userId,
      workspaceId: owner.workspaceId,
      network: "youtube",
    });
    assert.match(new URL(url).searchParams.get("code_challenge") ?? "", /^[A-Za-z0-9_-]{43}$/);
    const res = await fetch(url, { redirect: "manual" });
    const back = new URL(res.headers.get("location")!);
    return finishConnect(app.ctx, {
      network: "youtube",
      sessionHash,
      state: back.searchParams.get("state"),
      code: back.searchParams.get("code"),
      error: back.searchParams.get("error"),
    });
  };
  const first = await consent();
  assert.equal(first.kind, "connected");
  if (first.kind !== "connected") return;
  const [account] = first.accounts;
  assert.equal(account!.handle, "alicetube");
  const id = account!.social_account_id;
  const opened = await openAccount(db, app.ctx.sealer, id);
  assert.equal(opened.networkAccountId, user.channel!.id);
  const refreshToken = opened.tokens.refreshToken;
  assert.ok(refreshToken, "the first consent gave a refresh token");

  yt.withholdRefreshToken = true;
  const second = await consent();
  assert.equal(second.kind, "connected");
  const reopened = await openAccount(db, app.ctx.sealer, id);
  assert.notEqual(reopened.tokens.accessToken, opened.tokens.accessToken, "the new access token is saved");
  assert.equal(reopened.tokens.refreshToken, refreshToken, "the stored refresh token is kept");

  // The refresh pass (5 minutes before expiry) refreshes with the kept token; Google sends none back.
  await db("social_accounts")
    .where({ id })
    .update({ token_expires_at: new Date(Date.now() + 120_000) });
  const report = await refreshExpiringTokens(app.ctx);
  assert.ok(report.refreshed >= 1);
  const refreshed = await openAccount(db, app.ctx.sealer, id);
  assert.ok(yt.tokenValid(refreshed.tokens.accessToken));
  assert.equal(refreshed.tokens.refreshToken, refreshToken);
  assert.equal(server.hitsFor(GOOGLE_OAUTH_HOST, "/token").at(-1)!.status, 200);
});

test("a video post is published as a Short with the fake's permalink", async () => {
  const user = yt.addUser();
  const accountId = await connect(user);
  const postId = await videoPost(clip, "Short one\nwith a description");
  const before = yt.videosCreated;
  const id = await publish(postId, accountId);
  await advanceDeliveries(app.ctx, [id], { budgetSeconds: 60 });
  const d = await delivery(id);
  assert.equal(d.status, "published", d.error ?? "");
  assert.equal(d.post_url, `https://www.youtube.com/shorts/${d.provider_post_id}`);
  assert.ok(yt.videos.get(d.provider_post_id), "the fake's video");
  assert.equal(yt.videosCreated - before, 1);
  assert.equal((await db("posts").where({ id: postId }).first()).status, "published");
});

test("worker killed mid-upload: the next pass reconciles from the session and sends only the missing bytes", async () => {
  const user = yt.addUser();
  const accountId = await connect(user);
  const bytes = Buffer.concat([clip, Buffer.alloc(20 * MiB - clip.length, 3)]);
  const postId = await videoPost(bytes, "Twenty MiB", 60);
  const [row] = await db("deliveries")
    .insert({ ...ownerCols(), post_id: postId, social_account_id: accountId, status: "pending" })
    .returning("id");
  // The 2nd chunk reaches YouTube, its answer never comes back.
  yt.onChunk = (s) => {
    if (s.chunkPuts === 1)
      server.fault({ host: GOOGLE_APIS_HOST, path: YT_UPLOAD_PATH, method: "PUT" }, { kind: "lost" });
  };
  await runDeliveryStep(app.ctx, row.id);
  yt.onChunk = undefined;
  const mid = await delivery(row.id);
  const session = sessionOf(mid);
  assert.equal(session.received, 16 * MiB);
  // Its worker dies mid-step: step_started_at stays set and the lease runs out.
  await db("deliveries")
    .where({ id: row.id })
    .update({
      step_started_at: new Date(),
      locked_until: new Date(Date.now() - 1000),
      next_attempt_at: null,
    });
  const before = { inserts: yt.inserts, videos: yt.videosCreated };
  await advanceDeliveries(app.ctx, [row.id], { budgetSeconds: 60 });
  const done = await delivery(row.id);
  assert.equal(done.status, "published", done.error ?? "");
  assert.equal(yt.inserts, before.inserts, "no second upload session");
  assert.equal(yt.videosCreated - before.videos, 1);
  assert.equal(session.chunkPuts, 3, "chunks 1 and 2 were not sent again");
  assert.equal(yt.hashes.get(done.provider_post_id), createHash("sha256").update(bytes).digest("hex"));
});

test("lost answer to the final chunk: outcome_unknown, reconciled from the session, exactly one video", async () => {
  const user = yt.addUser();
  const accountId = await connect(user);
  const postId = await videoPost(clip, "Lost final answer");
  const before = { inserts: yt.inserts, videos: yt.videosCreated };
  server.fault({ host: GOOGLE_APIS_HOST, path: YT_UPLOAD_PATH, method: "PUT" }, { kind: "lost" });
  const [row] = await db("deliveries")
    .insert({ ...ownerCols(), post_id: postId, social_account_id: accountId, status: "pending" })
    .returning("id");
  assert.equal(await runDeliveryStep(app.ctx, row.id), "outcome_unknown");
  await advanceDeliveries(app.ctx, [row.id], { budgetSeconds: 60 });
  const done = await delivery(row.id);
  assert.equal(done.status, "published", done.error ?? "");
  assert.equal(yt.videosCreated - before.videos, 1);
  assert.equal(yt.inserts - before.inserts, 1);
  assert.equal(sessionOf(done).videoId, done.provider_post_id);
});

test("429 with Retry-After on the session start is waited out, one session", async () => {
  const user = yt.addUser();
  const accountId = await connect(user);
  const postId = await videoPost(clip, "After the wait");
  const before = yt.inserts;
  server.fault(
    { host: GOOGLE_APIS_HOST, path: YT_UPLOAD_PATH, method: "POST" },
    { kind: "rate_limit", retryAfterSeconds: 2 },
  );
  const started = clock.now().getTime();
  const id = await publish(postId, accountId);
  await advanceDeliveries(app.ctx, [id], { budgetSeconds: 60 });
  const done = await delivery(id);
  assert.equal(done.status, "published", done.error ?? "");
  assert.ok(clock.now().getTime() - started >= 2000, "the Retry-After wait was honoured");
  assert.equal(yt.inserts - before, 1);
});

test("quotaExceeded: the delivery fails naming the next quota day and is not retried", async () => {
  const user = yt.addUser();
  const accountId = await connect(user);
  const postId = await videoPost(clip, "Over quota");
  yt.insertQuota = yt.insertsToday;
  try {
    const id = await publish(postId, accountId);
    const d = await delivery(id);
    assert.equal(d.status, "failed");
    assert.match(
      d.error,
      /quota is used up \(quotaExceeded\); it resets at midnight Pacific time \(\d{4}-\d\d-\d\d \d\d:00 UTC\): publish again after that/,
    );
    assert.equal(d.next_attempt_at, null);
    const hits = server.hitsFor(GOOGLE_APIS_HOST, YT_UPLOAD_PATH, "POST").length;
    await runDueDeliveries(app.ctx);
    assert.equal(server.hitsFor(GOOGLE_APIS_HOST, YT_UPLOAD_PATH, "POST").length, hits, "nothing retried it");
    assert.equal((await delivery(id)).status, "failed");
    assert.equal((await db("social_accounts").where({ id: accountId }).first()).status, "connected");
  } finally {
    yt.insertQuota = Number.POSITIVE_INFINITY;
  }
});

test("a revoked token: the account needs_reconnect and the delivery fails with a clear reason", async () => {
  const user = yt.addUser();
  const accountId = await connect(user);
  const postId = await videoPost(clip, "Revoked");
  yt.revokeUser(user.id);
  const id = await publish(postId, accountId);
  const d = await delivery(id);
  assert.equal(d.status, "failed");
  assert.match(
    d.error,
    /needs to be reconnected on \/settings\/social: YouTube refused the account's credentials/,
  );
  assert.ok(!String(d.error).includes(user.accessToken));
  assert.equal((await db("social_accounts").where({ id: accountId }).first()).status, "needs_reconnect");
});

function ownerCols() {
  return { user_id: owner.userId, workspace_id: owner.workspaceId };
}
