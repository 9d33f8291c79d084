/**
 * Headless Chromium for end-to-end tests: playwright-core driving Debian's chromium at /usr/bin/chromium
 * (or CHROMIUM_PATH). A missing browser fails the test with a clear message; it is never skipped.
 */
import { existsSync } from "node:fs";
import { after } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Throws a clear error when Chromium is not installed. Call at the top of an e2e test file. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is required for this end-to-end test but ${CHROMIUM_PATH} does not exist ` +
        "(apt-get install chromium, or set CHROMIUM_PATH).",
    );
  }
}

/** Launches headless Chromium; closed automatically after the file's tests. */
export async function launchBrowser(): Promise<Browser> {
  requireChromium();
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  after(() => browser.close());
  return browser;
}

/**
 * Opens `url` in `page`; when the service redirects to /login, signs in with `who` through the real form and
 * waits until the browser is back on `url`'s path.
 */
export async function openSignedIn(
  page: Page,
  url: string,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(url);
  if (new URL(page.url()).pathname !== "/login") return;
  await page.fill('input[name="email"]', who.email);
  await page.fill('input[name="password"]', who.password);
  const path = new URL(url).pathname;
  await Promise.all([page.waitForURL((u) => u.pathname === path), page.click('button[type="submit"]')]);
}
