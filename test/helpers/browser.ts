/**
 * The browser side of tests: headless Chromium (playwright-core driving Debian's chromium at
 * /usr/bin/chromium, or CHROMIUM_PATH; a missing browser fails the test with a clear message, it is never
 * skipped), signing in through the real login form, and browser sessions for plain HTTP requests.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { after } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import type { AppContext } from "../../src/context.ts";
import { sha256 } from "../../src/crypto/seal.ts";
import { atHostEnd, hostState } from "./host-end.ts";

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

async function launch(): Promise<Browser> {
  return chromium.launch({
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
}

/** The one Chromium of a test host, launched by the first file that asks (test/helpers/host-end.ts). */
let shared: Promise<Browser> | undefined;

/**
 * Headless Chromium for the calling file. In a process of its own the file gets its own browser, closed after
 * its tests. In a test host (test/host.ts) the files share one browser (a launch costs about a CPU-second):
 * the contexts and pages a file opened are closed after its tests, and a file that closes the browser itself
 * (test/scale/multi-instance.test.ts) makes the next one launch another.
 */
export async function launchBrowser(): Promise<Browser> {
  requireChromium();
  if (!hostState.hosted) {
    const browser = await launch();
    after(() => browser.close());
    return browser;
  }
  if (shared && !(await shared.catch(() => undefined))?.isConnected()) shared = undefined;
  if (!shared) {
    const launching = launch().then((browser) => {
      hostState.sharedChildren += 1;
      browser.on("disconnected", () => {
        hostState.sharedChildren -= 1;
      });
      return browser;
    });
    shared = launching;
    atHostEnd(async () => (await launching).close());
  }
  const browser = await shared;
  after(async () => {
    for (const context of browser.contexts()) await context.close().catch(() => {});
  });
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

/**
 * A browser session for `userId` (the row src/web/session.ts reads, valid 24 hours), for page requests made
 * with fetch: `cookie` is the Cookie header, `csrf` the form token.
 */
export async function browserSession(
  ctx: Pick<AppContext, "db">,
  userId: string,
): Promise<{ cookie: string; csrf: string }> {
  const id = randomBytes(32).toString("base64url");
  const csrf = randomBytes(32).toString("base64url");
  const now = new Date();
  await ctx.db("browser_sessions").insert({
    id_hash: sha256(id),
    user_id: userId,
    csrf_token: csrf,
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + 24 * 3600 * 1000),
  });
  return { cookie: `smcp_session=${id}`, csrf };
}
