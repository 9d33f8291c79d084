/**
 * End to end in headless Chromium: /developers/mcp loads with its CSP (the inline search script runs, no
 * violations), and typing into the search box filters the tool reference by name, group and scope.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser, requireChromium } from "../helpers/browser.ts";

requireChromium();
const app = await startTestApp({ queue: false });
const browser = await launchBrowser();

const catalog = (await (await fetch(`${app.url}/developers/mcp/catalog.json`)).json()) as {
  tools: Array<{ name: string; group: string; scope: string }>;
};

const visible = (page: Page) =>
  page.$$eval("#tool-list > li", (items) =>
    items.filter((li) => !(li as HTMLElement).hidden).map((li) => (li as HTMLElement).dataset.name ?? ""),
  );

async function search(page: Page, text: string): Promise<string[]> {
  await page.fill("#tool-search", text);
  return visible(page);
}

test("typing a tool name filters the reference to it; group: and scope: filter by field", async () => {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(e.message));
  const res = await page.goto(`${app.url}/developers/mcp`);
  assert.equal(res?.status(), 200);

  const all = catalog.tools.map((t) => t.name);
  assert.deepEqual(await visible(page), all);
  assert.equal(await page.textContent("#tool-count"), `${all.length} tools`);

  const shown = await search(page, "list_carousel_formats");
  assert.ok(shown.includes("list_carousel_formats"));
  assert.ok(shown.length < all.length, `still showing ${shown.length} tools`);
  assert.deepEqual(await search(page, "name:list_carousel_formats"), ["list_carousel_formats"]);
  assert.equal(await page.textContent("#tool-count"), `1 of ${all.length} tools`);

  const media = catalog.tools.filter((t) => t.group === "media").map((t) => t.name);
  assert.deepEqual(await search(page, "group:media"), media);
  const analytics = catalog.tools.filter((t) => t.scope === "read:analytics").map((t) => t.name);
  assert.deepEqual(await search(page, "scope:read:analytics"), analytics);
  const caseless = await search(page, "GET_PROFILE");
  assert.ok(caseless.includes("get_profile") && caseless.length < all.length, "search ignores case");
  assert.deepEqual(await search(page, "no-such-tool-anywhere"), []);
  assert.deepEqual(await search(page, ""), all);

  assert.deepEqual(problems, [], "console errors or CSP violations");
  await page.close();
});

test("?q= pre-fills the search", async () => {
  const page = await browser.newPage();
  await page.goto(`${app.url}/developers/mcp?q=${encodeURIComponent("name:get_job_status")}`);
  assert.equal(await page.inputValue("#tool-search"), "name:get_job_status");
  assert.deepEqual(await visible(page), ["get_job_status"]);
  await page.close();
});
