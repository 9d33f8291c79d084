/**
 * The TikTok review UI in headless Chromium (service spec 1.11; networks.md 2.1 "Required UX for the Direct
 * Post audit"): a video post to TikTok through /review with the TikTok fake: no default privacy, toggles start
 * off, Publish disabled until the choices and consent are given, branded content cannot be private ("Only me"
 * disabled with the message), the label notices and the declaration follow the choice, and after Publish the
 * page tells that processing takes a few minutes and follows the delivery until it is published after
 * status/fetch polling.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { launchBrowser } from "../helpers/browser.ts";
import { reviewWorld } from "./review-fixtures.ts";

const w = await reviewWorld();
const { app, tt, server } = w;
const browser = await launchBrowser();
const alice = await app.user({ workspace: "Alice Studio" });
const owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const creator = tt.addCreator({ username: "alice.video", nickname: "Alice Video", stitchDisabled: true });
const accountId = await w.connectCreator(owner, creator);

test("a video to TikTok through /review: defaults off, branded cannot be private, consent required, published", async () => {
  const { postId, deliveryId } = await w.waitingDelivery(owner, accountId, "Mug launch video");
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${app.url}/review`);
    assert.equal(new URL(page.url()).pathname, "/login");
    await page.fill('input[name="email"]', alice.email);
    await page.fill('input[name="password"]', alice.password);
    await Promise.all([
      page.waitForURL((u) => u.pathname === "/review"),
      page.click('button[type="submit"]'),
    ]);
    await Promise.all([
      page.waitForURL((u) => u.pathname === `/review/posts/${postId}`),
      page.click(`a[href^="/review/posts/${postId}?delivery_id=${deliveryId}"]`),
    ]);

    assert.equal(await page.textContent("#creator-nickname"), "Alice Video");
    assert.equal(await page.locator("#preview video").count(), 1);
    const publish = page.locator("#publish");
    assert.equal(await page.locator("input[name=privacy_level]:checked").count(), 0, "no default privacy");
    for (const id of ["allow_comment", "allow_duet", "allow_stitch", "disclose", "consent"]) {
      assert.equal(await page.isChecked(`#${id}`), false, `${id} starts off`);
    }
    assert.equal(await page.isDisabled("#allow_stitch"), true, "Stitch turned off by the creator");
    assert.equal(await page.isDisabled("#allow_comment"), false);
    assert.equal(await publish.isDisabled(), true, "Publish disabled until privacy is chosen");
    assert.equal(
      await page.isVisible("#your_brand"),
      false,
      "disclosure choices hidden while the toggle is off",
    );
    assert.equal(await page.isVisible("#declaration-plain"), true);
    assert.match((await page.textContent("#declaration-plain")) ?? "", /Music Usage Confirmation/);

    // Branded content cannot be private.
    await page.check("#privacy-SELF_ONLY");
    await page.check("#disclose");
    assert.equal(await publish.isDisabled(), true, "disclosure on without a choice keeps Publish disabled");
    await page.check("#branded_content");
    assert.equal(await page.isDisabled("#privacy-SELF_ONLY"), true, "Only me disabled for branded content");
    assert.equal(await page.isChecked("#privacy-SELF_ONLY"), false, "Only me was unselected");
    assert.equal(
      (await page.textContent("#branded-private-note"))?.trim(),
      "Branded content visibility cannot be set to private.",
    );
    assert.equal(await page.isVisible("#branded-private-note"), true);
    assert.equal(
      await page.textContent("#label-notice"),
      "Your video will be labeled as 'Paid partnership'.",
    );
    assert.equal(await page.isVisible("#declaration-branded"), true);
    assert.match((await page.textContent("#declaration-branded")) ?? "", /Branded Content Policy/);
    // Switch to "Your brand" only: Only me comes back, the notice changes.
    await page.uncheck("#branded_content");
    await page.check("#your_brand");
    assert.equal(await page.isDisabled("#privacy-SELF_ONLY"), false);
    assert.equal(
      await page.textContent("#label-notice"),
      "Your video will be labeled as 'Promotional content'.",
    );
    assert.equal(await page.isVisible("#declaration-plain"), true);

    await page.check("#privacy-PUBLIC_TO_EVERYONE");
    await page.check("#allow_comment");
    await page.fill("#title", "Our new mug, on TikTok");
    assert.equal(await publish.isDisabled(), true, "consent required");
    await page.check("#consent");
    assert.equal(await publish.isDisabled(), false);

    await Promise.all([
      page.waitForURL((u) => u.pathname === `/review/deliveries/${deliveryId}`),
      publish.click(),
    ]);
    assert.match((await page.textContent("body")) ?? "", /Processing can take a few minutes/);
    // The page refreshes itself while TikTok processes; wait for the published state.
    await page.waitForSelector('#delivery-state[data-state="published"]', { timeout: 60_000 });
    const href = await page.getAttribute("#post-url", "href");
    assert.match(href ?? "", /^https:\/\/www\.tiktok\.com\/@alice\.video\/video\/\d{19}$/);
  } finally {
    await context.close();
  }

  const delivery = await app.ctx.db("deliveries").where({ id: deliveryId }).first();
  assert.equal(delivery.status, "published");
  assert.deepEqual(delivery.options, {
    privacy_level: "PUBLIC_TO_EVERYONE",
    disable_comment: false,
    disable_duet: true,
    disable_stitch: true,
    brand_content_toggle: false,
    brand_organic_toggle: true,
    title: "Our new mug, on TikTok",
  });
  const consent = await app.ctx.db("tiktok_consents").where({ delivery_id: deliveryId }).first();
  assert.equal(consent.user_id, alice.user_id);
  assert.deepEqual(consent.options, delivery.options);
  assert.ok(
    server.hitsFor("open.tiktokapis.com", "/v2/post/publish/status/fetch/").length >= 1,
    "status polled",
  );
  assert.ok(
    server.hitsFor("open.tiktokapis.com", "/v2/post/publish/creator_info/query/").length >= 2,
    "fresh",
  );
});
