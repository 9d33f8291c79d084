/**
 * The account settings page `/settings` in headless Chromium at a phone width (375 px) and a desktop width
 * (1280 px): the five sections (account, workspaces, connected apps, social accounts, billing and credits)
 * with their anchors, no horizontal overflow at either width, and a full-page screenshot of each (written
 * to a temp dir, checked to be a PNG of the page's width). The MCP connections page is held to the same
 * no-overflow rule.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { addMember } from "../../src/domain/account/accounts.ts";
import { connectSocialAccount } from "../../src/domain/social/accounts.ts";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser, openSignedIn, requireChromium } from "../helpers/browser.ts";
import { connect } from "../helpers/tokens.ts";

requireChromium();

const app = await startTestApp({ queue: false });
const browser = await launchBrowser();
const shots = await mkdtemp(path.join(os.tmpdir(), "smcp-settings-shots-"));

const alice = await app.user({ workspace: "Alice Studio with a rather long workspace name", plan: "growth" });
const bob = await app.user({ workspace: "Bob's shop" });
await addMember(app.ctx.db, bob.workspace_id, alice.email);
for (const scopes of [
  ["read:profile", "read:content", "create:content", "publish:content"],
  ["read:profile"],
  ["read:content", "read:jobs", "delete:content"],
])
  await connect(app, alice, scopes);
for (const [network, name] of [
  ["instagram", "Alice's Instagram"],
  ["linkedin", "an-account-display-name-without-any-spaces-that-is-far-wider-than-a-phone-screen"],
  ["facebook", "Alice Studio Page"],
] as const)
  await connectSocialAccount(
    app.ctx.db,
    app.ctx.sealer,
    { userId: alice.user_id, workspaceId: alice.workspace_id },
    {
      network,
      displayName: name,
      handle: name.slice(0, 30),
    },
  );

const SECTIONS = ["account", "workspaces", "connected-apps", "social-accounts", "billing"];

for (const width of [375, 1280]) {
  test(`/settings at ${width} px: five anchored sections, no horizontal overflow`, async () => {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    try {
      const page = await context.newPage();
      await openSignedIn(page, `${app.url}/settings`, alice);
      assert.deepEqual(await page.$$eval("section[id]", (els) => els.map((e) => e.id)), SECTIONS);
      assert.deepEqual(
        await page.$$eval("nav.sections a", (els) => els.map((e) => e.getAttribute("href"))),
        SECTIONS.map((s) => `#${s}`),
      );
      const text = (await page.textContent("body")) ?? "";
      for (const expected of [
        "Alice Studio with a rather long",
        "Bob's shop",
        "Alice's Instagram",
        "Credits left",
      ])
        assert.ok(text.includes(expected), `the page shows ${expected}`);
      assert.equal(await page.locator("#connected-apps form button").count(), 3, "each app is revocable");

      const overflow = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      assert.ok(overflow.scroll <= overflow.client, `horizontal overflow: ${JSON.stringify(overflow)}`);

      await page.click('nav.sections a[href="#billing"]');
      assert.equal(new URL(page.url()).hash, "#billing");

      const file = path.join(shots, `settings-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      const png = await readFile(file);
      assert.equal(png.subarray(1, 4).toString(), "PNG");
      assert.equal(png.readUInt32BE(16), width, "the screenshot is as wide as the viewport");

      await page.goto(`${app.url}/settings/integrations/mcp`);
      const mcp = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      assert.ok(mcp.scroll <= mcp.client, `MCP settings overflow: ${JSON.stringify(mcp)}`);
    } finally {
      await context.close();
    }
  });
}
