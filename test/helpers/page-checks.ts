/**
 * What a person would find wrong with a browser page, checked in headless Chromium (docs/pages.md "Accessible
 * and phone-sized"): axe-core violations of impact serious or critical; at a phone size (`phone`) a document
 * wider than the viewport and visible buttons under 44 px tall; status badges without words; inline styles
 * (the CSP allows only this origin's stylesheets). Used by the page walk (test/web/pages-walk.ts) and the
 * approval-page tests.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";

/**
 * axe-core's own minified build (axe.min.js, 0.6 MB), the same rules as the 1.3 MB axe.js that `axe.source`
 * holds: the page parses it on every navigation, and the smaller file costs about 0.1 CPU-second less a
 * page on the 2-core machines (measured with Debian's Chromium 156).
 */
const AXE_MIN = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * Loads axe-core into every page `context` opens from now on, before the page's own scripts (Playwright's
 * init script, which the page's CSP does not apply to). `pageProblems` then hands AxeBuilder a no-op source
 * instead of sending axe-core (its 1.3 MB axe.js) twice per page over the DevTools protocol (AxeBuilder injects it
 * in `analyze` and again per frame in legacy mode): 0.3-0.6 s a page instead of 2-3.5 s, same rules, same
 * results. Pages of other contexts still get axe injected by AxeBuilder.
 */
export async function preloadAxe(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: AXE_MIN });
}

/** What AxeBuilder evaluates as its "source" in a page where `preloadAxe` already put axe-core. */
const AXE_ALREADY_LOADED = "void 0";

/** What is wrong with the page now loaded in `page` (empty when nothing). */
export async function pageProblems(page: Page, phone: boolean): Promise<string[]> {
  const out: string[] = [];
  // Legacy mode runs the same rules in one call instead of opening a blank page per run for axe's finishRun
  // (half the time); these pages have no cross-origin frames, the one thing only the new mode reaches.
  // `resultTypes: ["violations"]`: every rule still runs on every node and every violation is reported with
  // all its nodes; only the passes and incomplete results (not read here) keep one node each, which spares
  // axe a unique selector per passing node (axe-core API, options.resultTypes): several seconds on the
  // developer reference's thousands of elements.
  const preloaded = await page.evaluate('typeof window.axe?.run === "function"');
  const results = await new AxeBuilder(preloaded ? { page, axeSource: AXE_ALREADY_LOADED } : { page })
    .setLegacyMode(true)
    .options({ resultTypes: ["violations"] })
    .analyze();
  for (const v of results.violations)
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
 * Loads every visit at a desktop size (1280 x 800, light) and a phone size (390 x 844, dark), each size in a
 * fresh context prepared by `prepare` (cookies, for example) and one page of it that the visits navigate in
 * turn (a new page costs a renderer process: about a CPU-second on the 2-core machines), and returns the
 * problems `pageProblems` finds, each as `label at WIDTHpx: problem` (empty when none).
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
      await preloadAxe(context);
      await prepare(context);
      const page = await context.newPage();
      if (phone) await page.emulateMedia({ colorScheme: "dark" });
      for (const visit of visits) {
        await visit.open(page);
        for (const p of await pageProblems(page, phone)) found.push(`${visit.label} at ${width}px: ${p}`);
      }
    } finally {
      await context.close();
    }
  }
  return found;
}
