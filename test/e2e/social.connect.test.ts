/**
 * Connecting live accounts in headless Chromium through /settings/social, with the networks' consent pages
 * and APIs played by the provider-shaped fakes (test/fakes/) through SOCIAL_HTTP_OVERRIDE (the browser
 * authorize redirect is rewritten too): Instagram (Instagram Login, long-lived token, the account id beyond
 * 2^53), Facebook (one account per Page chosen on the picker, Page tokens) and TikTok (client_key, refresh
 * token); a denied consent comes back as a readable page; the tokens are sealed at rest.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { listSocialAccounts, openAccount } from "../../src/domain/social/accounts.ts";
import { facebookFake } from "../fakes/facebook.ts";
import { instagramFake } from "../fakes/instagram.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { tiktokFake } from "../fakes/tiktok.ts";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";

const server = await startFakeNetworks();
const ig = instagramFake(server, FAKE_APPS.instagram);
const fb = facebookFake(server, FAKE_APPS.facebook);
const tt = tiktokFake(server, FAKE_APPS.tiktok);
const app = await startTestApp({
  env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["instagram", "facebook", "tiktok"]) },
});
const browser = await launchBrowser();
const me = await app.user({ workspace: "Connect Studio" });
const owner = { userId: me.user_id, workspaceId: me.workspace_id };

async function signedIn(): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${app.url}/settings/social`);
  await page.fill('input[name="email"]', me.email);
  await page.fill('input[name="password"]', me.password);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social"),
    page.click('button[type="submit"]'),
  ]);
  return page;
}

const page = await signedIn();

test("connect Instagram: consent at the (fake) network, long-lived token sealed, the full account id", async () => {
  const user = ig.addUser({ username: "connect.insta" });
  await page.goto(`${app.url}/settings/social`);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social" && u.searchParams.get("connected") === "1"),
    page.click('button[data-connect="instagram"]'),
  ]);
  const authorize = server.hitsFor("www.instagram.com", "/oauth/authorize");
  assert.equal(authorize.length, 1, "the browser went to the network's consent page through the override");
  assert.match((await page.locator('tr[data-network="instagram"]').textContent()) ?? "", /connect\.insta/);
  const [account] = await listSocialAccounts(app.ctx.db, owner, "instagram");
  const opened = await openAccount(app.ctx.db, app.ctx.sealer, account!.social_account_id);
  assert.equal(opened.networkAccountId, user.userId);
  assert.equal(opened.mode, "live");
  assert.ok(ig.tokenValid(opened.tokens.accessToken), "the long-lived token the fake issued");
  const row = await app.ctx.db("social_accounts").where({ id: account!.social_account_id }).first();
  assert.ok(!JSON.stringify(row).includes(opened.tokens.accessToken), "sealed at rest");
});

test("connect Facebook: pick one of two Pages, one account with that Page's token", async () => {
  const user = fb.addUser({ name: "Connect Owner", pages: ["Bakery Page", "Blog Page"] });
  await page.goto(`${app.url}/settings/social`);
  await Promise.all([
    page.waitForURL((u) => u.pathname.startsWith("/settings/social/pick/")),
    page.click('button[data-connect="facebook"]'),
  ]);
  assert.match((await page.textContent("body")) ?? "", /Bakery Page.*Blog Page/s);
  await page.locator("label", { hasText: "Bakery Page" }).locator("input").check();
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social" && u.searchParams.get("connected") === "1"),
    page.click('button[type="submit"]'),
  ]);
  const accounts = await listSocialAccounts(app.ctx.db, owner, "facebook");
  assert.deepEqual(
    accounts.map((a) => a.handle),
    ["Bakery Page"],
  );
  const opened = await openAccount(app.ctx.db, app.ctx.sealer, accounts[0]!.social_account_id);
  assert.equal(opened.networkAccountId, user.pages[0]!.id);
  assert.equal(opened.tokens.accessToken, user.pages[0]!.accessToken, "the Page token");
});

test("connect TikTok: refresh token kept; a denied consent is a readable page", async () => {
  const creator = tt.addCreator({ username: "connect.tok", nickname: "Connect Tok" });
  await page.goto(`${app.url}/settings/social`);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social" && u.searchParams.get("connected") === "1"),
    page.click('button[data-connect="tiktok"]'),
  ]);
  const [account] = await listSocialAccounts(app.ctx.db, owner, "tiktok");
  assert.equal(account!.handle, "connect.tok");
  const opened = await openAccount(app.ctx.db, app.ctx.sealer, account!.social_account_id);
  assert.equal(opened.networkAccountId, creator.openId);
  assert.ok(opened.tokens.refreshToken?.startsWith("rft."));
  assert.ok(opened.tokens.expiresAt && opened.tokens.expiresAt.getTime() < Date.now() + 86_401_000);

  tt.denyNext = true;
  await page.goto(`${app.url}/settings/social`);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social/callback/tiktok"),
    page.click('button[data-connect="tiktok"]'),
  ]);
  const body = (await page.textContent("body")) ?? "";
  assert.match(body, /Could not connect/);
  assert.doesNotMatch(body, /at .*\.ts:\d+/, "no stack trace");
});
