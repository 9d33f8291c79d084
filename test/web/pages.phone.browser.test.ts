// test-process: own (test/web/pages-walk.ts holds one app and one browser for the whole process)
/**
 * Every browser page at a phone size (390 x 844, dark), signed out and signed in: axe-core, no sideways
 * scrolling, buttons at least 44 px tall, badges in words, no inline style (test/web/pages-walk.ts). Then the
 * keyboard: the approval page's Approve and Decline buttons are reached with Tab, named, and drawn with a
 * visible focus indicator.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openSignedIn } from "../helpers/browser.ts";
import { activity, app, browser, walkEveryPage, walkTitle, who } from "./pages-walk.ts";

test(walkTitle(390, 844), (t) => walkEveryPage(t, 390, 844));

test("the approval page's buttons are reached by keyboard, named, and show their focus", async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    await openSignedIn(
      page,
      `${app.url}/settings/integrations/mcp/requests/${activity.pending_request}`,
      who,
    );
    const reached: string[] = [];
    for (let i = 0; i < 40 && reached.length < 2; i++) {
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (el?.tagName !== "BUTTON") return undefined;
        const style = getComputedStyle(el);
        return {
          name: el.textContent?.trim() ?? "",
          value: (el as HTMLButtonElement).value,
          outline: style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) >= 2,
          ring: style.boxShadow !== "none",
        };
      });
      if (focused && (focused.value === "approve" || focused.value === "decline")) {
        assert.ok(focused.outline || focused.ring, `${focused.name} shows its focus`);
        reached.push(focused.name);
      }
    }
    assert.deepEqual(reached, ["Approve", "Decline"]);
    const approve = page.getByRole("button", { name: "Approve" });
    assert.equal(await approve.count(), 1);
    assert.equal(await page.getByRole("button", { name: "Decline" }).count(), 1);
    // The skip link is the first stop and leads to the page's content.
    await page.keyboard.press("Shift+Tab");
    await page.goto(page.url());
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
  } finally {
    await context.close();
  }
});
