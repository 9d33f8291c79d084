/**
 * Token refresh of live accounts by the worker's refresh pass (src/domain/social/refresh.ts) through the live
 * adapters and the fakes: Instagram's long-lived token (no refresh token: the access token itself is
 * refreshed), TikTok's 24 h token with a rotated refresh token, a revoked TikTok refresh -> needs_reconnect,
 * and a 5xx during refresh never disconnects.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Owner } from "../../src/domain/owner.ts";
import { openAccount, upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { refreshExpiringTokens } from "../../src/domain/social/refresh.ts";
import { INSTAGRAM_CAPABILITIES } from "../../src/providers/social/instagram/oauth.ts";
import { TIKTOK_CAPABILITIES } from "../../src/providers/social/tiktok/oauth.ts";
import { IG_GRAPH_HOST, instagramFake } from "../fakes/instagram.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { TT_API_HOST, type TikTokCreator, tiktokFake } from "../fakes/tiktok.ts";
import { startTestApp } from "../helpers/app.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";

const server = await startFakeNetworks();
const ig = instagramFake(server, FAKE_APPS.instagram);
const tt = tiktokFake(server, FAKE_APPS.tiktok);
const app = await startTestApp({
  env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["instagram", "tiktok"]) },
});
const me = await app.user();
const owner: Owner = { userId: me.user_id, workspaceId: me.workspace_id };
const db = app.ctx.db;

async function connectTikTok(c: TikTokCreator, expiresInSeconds: number): Promise<string> {
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "tiktok",
    mode: "live",
    account: { networkAccountId: c.openId, handle: c.username, capabilities: TIKTOK_CAPABILITIES },
    tokens: {
      accessToken: c.accessToken,
      refreshToken: c.refreshToken,
      expiresAt: new Date(Date.now() + expiresInSeconds * 1000),
      scopes: ["user.info.basic", "video.publish"],
    },
    now: new Date(),
  });
  return account.social_account_id;
}

test("Instagram's long-lived token is refreshed a few days before it expires", async () => {
  const user = ig.addUser({ username: "refresh.me" });
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "instagram",
    mode: "live",
    account: { networkAccountId: user.userId, handle: user.username, capabilities: INSTAGRAM_CAPABILITIES },
    tokens: {
      accessToken: user.accessToken,
      expiresAt: new Date(Date.now() + 3 * 86_400_000),
      scopes: ["instagram_business_basic", "instagram_business_content_publish"],
    },
    now: new Date(),
  });
  await refreshExpiringTokens(app.ctx);
  const opened = await openAccount(db, app.ctx.sealer, account.social_account_id);
  assert.notEqual(opened.tokens.accessToken, user.accessToken, "a new long-lived token");
  assert.ok(ig.tokenValid(opened.tokens.accessToken));
  assert.ok(opened.tokens.expiresAt!.getTime() > Date.now() + 50 * 86_400_000, "60 days again");
  assert.equal(server.hitsFor(IG_GRAPH_HOST, "/refresh_access_token").length, 1);
});

test("TikTok: the 24 h token is refreshed with a rotated refresh token; revoked -> needs_reconnect; 5xx keeps it", async () => {
  const fine = tt.addCreator({ username: "fine" });
  const revoked = tt.addCreator({ username: "gone" });
  const flaky = tt.addCreator({ username: "flaky" });
  const fineId = await connectTikTok(fine, 1800);
  const revokedId = await connectTikTok(revoked, 1800);
  tt.revokeCreator(revoked.openId);
  await refreshExpiringTokens(app.ctx);
  const opened = await openAccount(db, app.ctx.sealer, fineId);
  assert.notEqual(opened.tokens.accessToken, fine.accessToken);
  assert.notEqual(opened.tokens.refreshToken, fine.refreshToken, "rotated refresh token saved");
  assert.equal((await db("social_accounts").where({ id: revokedId }).first()).status, "needs_reconnect");

  const flakyId = await connectTikTok(flaky, 1800);
  server.fault(
    { host: TT_API_HOST, path: "/v2/oauth/token/", method: "POST", times: 5 },
    {
      kind: "status",
      status: 503,
      body: { error: "server_error", error_description: "try later", log_id: "x" },
    },
  );
  await refreshExpiringTokens(app.ctx);
  server.clearFaults();
  const row = await db("social_accounts").where({ id: flakyId }).first();
  assert.equal(row.status, "connected", "a transient failure never disconnects");
});
