/**
 * The sandbox connector end to end, offline, in headless Chromium: sign in, connect Instagram and Facebook
 * (Page picker) through /settings/social and the sandbox consent page, publish an approved post with
 * publish_post, open the delivery's /sandbox page and see the post; denied consent, a forged state and
 * disconnect/reconnect behave as the connect flow promises.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { rowBinding } from "../../src/crypto/seal.ts";
import { listSocialAccounts } from "../../src/domain/social/accounts.ts";
import { handler as publishHandler } from "../../src/tools/social/publish_post.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { imagePost, key, named, reviewed, setup } from "../tools/carousels/fixtures.ts";

const publish = named("publish_post", publishHandler);
const { app, me, other } = await setup();
const browser = await launchBrowser();
const owner = { userId: me.user_id, workspaceId: me.workspace_id };

async function signedIn(who: { email: string; password?: string }): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${app.url}/settings/social`);
  assert.equal(new URL(page.url()).pathname, "/login");
  await page.fill('input[name="email"]', who.email);
  await page.fill('input[name="password"]', who.password!);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social"),
    page.click('button[type="submit"]'),
  ]);
  return page;
}

const page = await signedIn(me as { email: string; password: string });

test("connect Instagram through the sandbox consent page labelled Sandbox", async () => {
  await page.goto(`${app.url}/settings/social`);
  assert.match((await page.textContent("body")) ?? "", /No account is connected/);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/sandbox/instagram/authorize"),
    page.click('button[data-connect="instagram"]'),
  ]);
  const consent = new URL(page.url());
  assert.equal(consent.searchParams.get("code_challenge_method"), "S256", "PKCE S256");
  assert.equal(consent.searchParams.get("redirect_uri"), `${app.url}/settings/social/callback/instagram`);
  assert.match((await page.textContent(".sandbox-banner")) ?? "", /Sandbox · Instagram is not contacted/);
  assert.match((await page.textContent("h1")) ?? "", /^Sandbox Instagram/);
  await page.fill('input[name="names"]', "Shop Insta");
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social" && u.searchParams.get("connected") === "1"),
    page.click("#sandbox-allow"),
  ]);
  const row = page.locator('tr[data-network="instagram"]');
  assert.equal(await row.count(), 1);
  assert.match(
    (await row.textContent()) ?? "",
    /Instagram Sandbox.*Shop Insta \(Sandbox\).*Connected.*images, carousels, videos/s,
  );
  const [account] = await listSocialAccounts(app.ctx.db, owner, "instagram");
  assert.equal(account!.status, "connected");
  const stored = await app.ctx.db("social_accounts").where({ id: account!.social_account_id }).first();
  assert.equal(stored.mode, "sandbox");
  assert.deepEqual(stored.scopes, ["sandbox.publish"]);
  assert.ok(stored.token_expires_at > new Date(), "expiry stored");
  assert.match(stored.network_account_id, /^sandbox-[0-9a-f]{16}$/);
  assert.ok(
    !(await page.content()).includes(
      app.ctx.sealer.open<string>(
        stored.access_token_sealed,
        rowBinding("social_accounts", "access_token_sealed", stored.id),
      ),
    ),
  );
});

test("Facebook: consent, then the Page picker connects only the chosen Page", async () => {
  await page.goto(`${app.url}/settings/social`);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/sandbox/facebook/authorize"),
    page.click('button[data-connect="facebook"]'),
  ]);
  await page.fill('input[name="names"]', "Corner Shop, Second Page");
  await Promise.all([
    page.waitForURL((u) => u.pathname.startsWith("/settings/social/pick/")),
    page.click("#sandbox-allow"),
  ]);
  assert.match((await page.textContent("h1")) ?? "", /Choose which Facebook Pages/);
  await page.check('input[name="account"][value="0"]');
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get("connected") === "1"),
    page.click('button[type="submit"]'),
  ]);
  const pages = await listSocialAccounts(app.ctx.db, owner, "facebook");
  assert.deepEqual(
    pages.map((p) => p.display_name),
    ["Corner Shop (Sandbox)"],
  );
});

test("publish_post of an approved carousel-like post -> published on the /sandbox page, which shows it", async () => {
  const accounts = await listSocialAccounts(app.ctx.db, owner);
  const insta = accounts.find((a) => a.network === "instagram")!;
  const fb = accounts.find((a) => a.network === "facebook")!;
  const postId = await imagePost(app, me, "Six slides of summer\nsecond line", 3);
  const { result } = await reviewed(app, me, publish, {
    post_id: postId,
    social_account_ids: [insta.social_account_id, fb.social_account_id],
    idempotency_key: key(),
  });
  assert.equal(result.data.deliveries.length, 2);
  for (const d of result.data.deliveries) {
    assert.equal(d.status, "published", JSON.stringify(d));
    assert.equal(d.post_url, `${app.url}/sandbox/${d.network}/${d.delivery_id}`);
  }
  const row = await app.ctx.db("deliveries").where({ id: result.data.deliveries[0]!.delivery_id }).first();
  assert.equal(row.network_ids.sandbox_upload.items.length, 3, "the sandbox read every media file");
  const ig = result.data.deliveries.find((d) => d.network === "instagram")!;
  await page.goto(ig.post_url!);
  assert.match((await page.textContent(".sandbox-banner")) ?? "", /Sandbox/);
  assert.match((await page.textContent(".caption")) ?? "", /Six slides of summer\nsecond line/);
  const images = page.locator(".sandbox-post img");
  assert.equal(await images.count(), 3);
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll<HTMLImageElement>(".sandbox-post img")).every(
      (i) => i.complete && i.naturalWidth > 0,
    ),
  );
  const src = await images.first().getAttribute("src");
  assert.match(src!, /\/media\/public\/[0-9a-f-]{36}\?exp=\d+&sig=/);
  // The page is public like a real post URL, but only for published sandbox deliveries.
  assert.equal((await fetch(ig.post_url!)).status, 200);
  assert.equal((await fetch(ig.post_url!.replace("/instagram/", "/facebook/"))).status, 404);
});

test("a denied consent and a forged or reused state come back as readable pages", async () => {
  await page.goto(`${app.url}/settings/social`);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/sandbox/x/authorize"),
    page.click('button[data-connect="x"]'),
  ]);
  const consentUrl = page.url();
  const response = await Promise.all([
    page.waitForURL((u) => u.pathname === "/settings/social/callback/x"),
    page.click("#sandbox-deny"),
  ]);
  void response;
  assert.match(
    (await page.textContent(".error")) ?? "",
    /You declined the X consent, so nothing was connected/,
  );
  assert.equal((await listSocialAccounts(app.ctx.db, owner, "x")).length, 0);
  // The same state cannot be used twice.
  const state = new URL(consentUrl).searchParams.get("state")!;
  const again = await page.goto(`${app.url}/settings/social/callback/x?state=${state}&code=anything`);
  assert.equal(again!.status(), 400);
  assert.match((await page.textContent(".error")) ?? "", /already used or is not valid/);
  const forged = await page.goto(`${app.url}/settings/social/callback/x?state=forged&code=anything`);
  assert.equal(forged!.status(), 400);
  assert.doesNotMatch(await page.content(), /at .*\.ts:\d+/, "no stack trace");
});

test("a state started in another session is refused", async () => {
  const otherPage = await signedIn(other as { email: string; password: string });
  await Promise.all([
    otherPage.waitForURL((u) => u.pathname === "/sandbox/linkedin/authorize"),
    otherPage.click('button[data-connect="linkedin"]'),
  ]);
  const state = new URL(otherPage.url()).searchParams.get("state")!;
  const r = await page.goto(`${app.url}/settings/social/callback/linkedin?state=${state}&code=x`);
  assert.equal(r!.status(), 400);
  assert.match((await page.textContent(".error")) ?? "", /another browser session/);
  await otherPage.context().close();
});

test("disconnect asks for confirmation; reconnecting the same account revives the same row", async () => {
  const [insta] = await listSocialAccounts(app.ctx.db, owner, "instagram");
  const before = await app.ctx.db("social_accounts").where({ id: insta!.social_account_id }).first();
  await page.goto(`${app.url}/settings/social`);
  await page.click(`tr[data-account-id="${insta!.social_account_id}"] a:text("Disconnect")`);
  assert.match((await page.textContent("h1")) ?? "", /Disconnect Shop Insta \(Sandbox\)\?/);
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get("disconnected") === "1"),
    page.click("#confirm-disconnect"),
  ]);
  assert.equal((await listSocialAccounts(app.ctx.db, owner, "instagram")).length, 0);
  const gone = await app.ctx.db("social_accounts").where({ id: insta!.social_account_id }).first();
  assert.equal(gone.status, "disconnected");
  assert.equal(gone.access_token_sealed, null, "tokens erased");
  // A disconnect without the CSRF token changes nothing.
  const forged = await fetch(`${app.url}/settings/social/accounts/${insta!.social_account_id}/disconnect`, {
    method: "POST",
    body: new URLSearchParams({ csrf_token: "wrong" }),
    redirect: "manual",
  });
  assert.ok(forged.status === 401 || forged.status === 403);

  await Promise.all([
    page.waitForURL((u) => u.pathname === "/sandbox/instagram/authorize"),
    page.click('button[data-connect="instagram"]'),
  ]);
  await page.fill('input[name="names"]', "Shop Insta");
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get("connected") === "1"),
    page.click("#sandbox-allow"),
  ]);
  const rows = await app.ctx
    .db("social_accounts")
    .where({ workspace_id: me.workspace_id, network: "instagram" });
  assert.equal(rows.length, 1, "no duplicate row");
  assert.equal(rows[0].id, before.id);
  assert.equal(rows[0].status, "connected");
  assert.ok(rows[0].refresh_token_sealed, "refresh token stored again");
});

test("needs_reconnect shows the reason and a Reconnect button; per-account defaults are saved", async () => {
  const [insta] = await listSocialAccounts(app.ctx.db, owner, "instagram");
  const id = insta!.social_account_id;
  await app.ctx
    .db("social_accounts")
    .where({ id })
    .update({ status: "needs_reconnect", last_error: "the access token was revoked" });
  await page.goto(`${app.url}/settings/social`);
  const row = page.locator(`tr[data-account-id="${id}"]`);
  assert.equal(await row.getAttribute("data-status"), "needs_reconnect");
  assert.match((await row.textContent()) ?? "", /Needs reconnecting.*the access token was revoked/s);
  await Promise.all([
    page.waitForURL((u) => u.pathname === "/sandbox/instagram/authorize"),
    row.locator('button:text("Reconnect")').click(),
  ]);
  await page.fill('input[name="names"]', "Shop Insta");
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get("connected") === "1"),
    page.click("#sandbox-allow"),
  ]);
  const back = page.locator(`tr[data-account-id="${id}"]`);
  assert.equal(await back.getAttribute("data-status"), "connected", "the same row is connected again");

  await back.locator('select[name="share_to_feed"]').selectOption("false");
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get("saved") === "1"),
    back.locator('button:text("Save defaults")').click(),
  ]);
  const saved = await app.ctx.db("social_accounts").where({ id }).first();
  assert.deepEqual(saved.settings, { share_to_feed: "false" });
});
