/**
 * What a person would find wrong with a browser page, checked in headless Chromium (issue 25): axe-core
 * violations of impact serious or critical; at a phone size (`phone`) a document wider than the viewport and
 * visible buttons under 44 px tall; status badges without words; inline styles (the CSP allows only this
 * origin's stylesheets). Used by the page walk (test/web/pages-walk.ts) and the approval-page tests.
 */
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";

/** What is wrong with the page now loaded in `page` (empty when nothing). */
export async function pageProblems(page: Page, phone: boolean): Promise<string[]> {
  const out: string[] = [];
  // Legacy mode runs the same rules in one call instead of opening a blank page per run for axe's finishRun
  // (half the time); these pages have no cross-origin frames, the one thing only the new mode reaches.
  const axe = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  for (const v of axe.violations)
    if (v.impact === "serious" || v.impact === "critical")
      out.push(
        `axe ${v.impact} ${v.id}: ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(" "))
          .join(" | ")}`,
      );
  // No named functions inside evaluate: the test runner's transpiler would wrap them in a helper the page
  // does not have.
  const layout = await page.evaluate(() => {
    return {
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      shortButtons: Array.from(
        document.querySelectorAll('button, [role="button"], input[type="submit"], select'),
      )
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.height > 0 && r.height < 44 && getComputedStyle(el).visibility !== "hidden";
        })
        .map((el) => `${el.tagName.toLowerCase()} "${(el.textContent ?? "").trim().slice(0, 30)}"`),
      inlineStyles: document.querySelectorAll("[style], style").length,
      silentBadges: Array.from(document.querySelectorAll(".badge"))
        .filter((el) => (el.textContent ?? "").trim() === "")
        .map((el) => el.outerHTML.slice(0, 80)),
    };
  });
  if (phone && layout.scroll > layout.client)
    out.push(`wider than the viewport: ${layout.scroll} > ${layout.client}`);
  if (phone && layout.shortButtons.length > 0)
    out.push(`buttons under 44 px: ${layout.shortButtons.join(", ")}`);
  if (layout.inlineStyles > 0) out.push(`${layout.inlineStyles} inline style attributes or blocks`);
  if (layout.silentBadges.length > 0) out.push(`badges without words: ${layout.silentBadges.join(", ")}`);
  return out;
}

/** A page to check: a label for its problems, and the steps that load it in `page`. */
export interface PageVisit {
  label: string;
  open(page: Page): Promise<void>;
}

/**
 * Loads every visit in its own page at a desktop size (1280 x 800, light) and a phone size (390 x 844, dark),
 * each size in a fresh context prepared by `prepare` (cookies, for example), and returns the problems
 * `pageProblems` finds, each as `label at WIDTHpx: problem` (empty when none).
 */
export async function problemsAtEverySize(
  browser: Browser,
  visits: PageVisit[],
  prepare: (context: BrowserContext) => Promise<void> = async () => {},
): Promise<string[]> {
  const found: string[] = [];
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    const phone = width < 600;
    const context = await browser.newContext({ viewport: { width, height } });
    try {
      await prepare(context);
      for (const visit of visits) {
        const page = await context.newPage();
        if (phone) await page.emulateMedia({ colorScheme: "dark" });
        await visit.open(page);
        for (const p of await pageProblems(page, phone)) found.push(`${visit.label} at ${width}px: ${p}`);
        await page.close();
      }
    } finally {
      await context.close();
    }
  }
  return found;
}
