/**
 * The page checks (test/helpers/page-checks.ts) find what they look for, with axe-core preloaded by init
 * script (`preloadAxe`) and without it (AxeBuilder injects it): a picture without a text alternative is
 * axe's critical `image-alt`, an inline style and a wordless badge are reported, and a clean page has none.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { launchBrowser } from "../helpers/browser.ts";
import { pageProblems, preloadAxe } from "../helpers/page-checks.ts";

const browser = await launchBrowser();
const BAD = `<!doctype html><html lang="en"><head><title>Bad</title></head><body><main><h1>Bad</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10">
<p style="color:red">styled</p><span class="badge"></span></main></body></html>`;
const GOOD = `<!doctype html><html lang="en"><head><title>Good</title></head><body><main><h1>Good</h1>
<p>Plain text.</p><span class="badge">published</span></main></body></html>`;

for (const preloaded of [true, false]) {
  test(`axe ${preloaded ? "preloaded by init script" : "injected by AxeBuilder"}: problems found on a bad page, none on a good one`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    if (preloaded) await preloadAxe(context);
    const page = await context.newPage();
    try {
      await page.setContent(BAD);
      assert.equal(await page.evaluate('typeof window.axe?.run === "function"'), preloaded);
      const bad = await pageProblems(page, false);
      assert.ok(
        bad.some((p) => p.startsWith("axe critical image-alt")),
        bad.join("\n"),
      );
      assert.ok(
        bad.some((p) => p.includes("inline style")),
        bad.join("\n"),
      );
      assert.ok(
        bad.some((p) => p.startsWith("badges without words")),
        bad.join("\n"),
      );
      await page.setContent(GOOD);
      assert.deepEqual(await pageProblems(page, false), []);
    } finally {
      await context.close();
    }
  });
}
