/**
 * The walk over every browser page in headless Chromium, signed out and signed in, over the demo workspace (`admin demo`
 * with the service context: posts, a schedule, published and failed deliveries, sandbox accounts, media, a
 * request waiting for approval), at a desktop size (1280 x 800, light) and a phone size (390 x 844, dark):
 * - axe-core (@axe-core/playwright) reports no violation of impact serious or critical (form labels,
 *   contrast, names of buttons and links, landmarks);
 * - at the phone size the document is no wider than the viewport, and every visible button is at least
 *   44 px tall;
 * - every status badge says its status in words (colour is never the only signal), and no page carries an
 *   inline style (the CSP allows only this origin's stylesheets).
 *
 * Shared by test/web/pages.desktop.browser.test.ts and test/web/pages.phone.browser.test.ts: each file starts
 * its own service and demo workspace (the walk publishes the TikTok review post), so the two sizes run in
 * parallel.
 */
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import type { BrowserContext, Page } from "playwright-core";
import { runDemo } from "../../src/cli/demo.ts";
import { callbackUrl } from "../../src/domain/social/connect.ts";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser, openSignedIn } from "../helpers/browser.ts";
import { pageProblems, preloadAxe } from "../helpers/page-checks.ts";
import { authorizeQuery, HIGH_LIMITS, pkce, register } from "../oauth/support.ts";

export const app = await startTestApp({ queue: false, env: HIGH_LIMITS });
export const browser = await launchBrowser();
export const who = { email: "pages@example.test", password: "a long demo password" };
const demo = (await runDemo(
  app.ctx.db,
  ["--email", who.email, "--password", who.password],
  app.ctx.config,
  app.ctx,
)) as Record<string, any>;
export const activity = demo.activity as Record<string, any>;
const posts = demo.posts as string[];
const client = await register(app, { client_name: "Pages test agent" });
const sandboxCallback = encodeURIComponent(callbackUrl(app.url, "instagram"));

let tiktokStatus: string | undefined;

/** A page to check: a path, or steps that end on the page. */
interface Visit {
  name: string;
  open: string | ((page: Page) => Promise<void>);
  /** The HTTP status the page answers with (default 200). */
  status?: number;
}

const SIGNED_OUT: Visit[] = [
  { name: "landing", open: "/" },
  { name: "sign in", open: "/login" },
  {
    name: "sign in, wrong password",
    open: async (page) => {
      await page.goto(`${app.url}/login`);
      await page.fill('input[name="email"]', who.email);
      await page.fill('input[name="password"]', "not the password");
      await Promise.all([page.waitForLoadState("load"), page.click('button[type="submit"]')]);
    },
  },
  { name: "developer reference", open: "/developers/mcp" },
  { name: "sandbox post", open: `/sandbox/linkedin/${activity.published_deliveries[0]}` },
  { name: "sandbox post not found", open: `/sandbox/linkedin/${crypto.randomUUID()}`, status: 404 },
];

const SIGNED_IN: Visit[] = [
  { name: "landing, signed in", open: "/" },
  { name: "posts", open: "/posts" },
  { name: "posts, filtered", open: "/posts?status=failed&network=facebook" },
  { name: "cancel a schedule", open: `/posts/schedules/${activity.schedule_id}/cancel` },
  { name: "media", open: "/media" },
  { name: "social accounts", open: "/settings/social" },
  {
    name: "disconnect an account",
    open: `/settings/social/accounts/${activity.social_accounts.linkedin}/disconnect`,
  },
  { name: "settings", open: "/settings" },
  { name: "MCP connections", open: "/settings/integrations/mcp" },
  { name: "approval page", open: `/settings/integrations/mcp/requests/${activity.pending_request}` },
  { name: "TikTok review", open: "/review" },
  { name: "TikTok review form", open: `/review/posts/${posts[2]}` },
  {
    name: "TikTok delivery status",
    open: async (page) => {
      // Published once (the first walk); the second walk opens the same status page.
      if (tiktokStatus) {
        await page.goto(tiktokStatus);
        return;
      }
      await page.goto(`${app.url}/review/posts/${posts[2]}`);
      await page.locator("input[name=privacy_level]").first().check();
      await page.check("#consent");
      await Promise.all([
        page.waitForURL((u) => u.pathname.startsWith("/review/deliveries/")),
        page.click("#publish"),
      ]);
      tiktokStatus = page.url();
    },
  },
  {
    name: "consent",
    open: authorizeQuery(app, client, pkce(), { scope: "read:profile read:content publish:content" }),
  },
  { name: "authorization error", open: "/mcp/oauth/authorize?client_id=nobody", status: 400 },
  {
    name: "sandbox consent",
    open: `/sandbox/instagram/authorize?redirect_uri=${sandboxCallback}&state=s&response_type=code`,
  },
  {
    name: "Facebook Pages to choose",
    open: async (page) => {
      await page.goto(`${app.url}/settings/social`);
      await Promise.all([
        page.waitForURL((u) => u.pathname === "/sandbox/facebook/authorize"),
        page.click('ul.connect button[data-connect="facebook"]'),
      ]);
      await page.fill('input[name="names"]', "Bakery Page, Cafe Page");
      await Promise.all([
        page.waitForURL((u) => u.pathname.startsWith("/settings/social/pick/")),
        page.click("#sandbox-allow"),
      ]);
    },
  },
  {
    name: "form expired",
    open: async (page) => {
      await page.goto(`${app.url}/logout`);
      await page.evaluate(() => {
        (document.querySelector('input[name="csrf_token"]') as HTMLInputElement).value = "stale";
      });
      await Promise.all([page.waitForLoadState("load"), page.click('main button[type="submit"]')]);
    },
    status: 403,
  },
  { name: "not found", open: `/posts/schedules/${crypto.randomUUID()}/cancel`, status: 404 },
  { name: "sign out", open: "/logout" },
];

/**
 * Opens the visits one after another in one page of `context` (a new page costs a renderer process), one
 * subtest of `t` per visit (its own timeout and report), each failing with every problem found on its page.
 */
async function walk(
  t: TestContext,
  context: BrowserContext,
  visits: Visit[],
  phone: boolean,
  signedIn: boolean,
): Promise<void> {
  const page = await context.newPage();
  if (phone) await page.emulateMedia({ colorScheme: "dark" });
  try {
    for (const visit of visits) {
      await t.test(visit.name, async () => {
        let status = 200;
        if (typeof visit.open === "string") {
          const res = await page.goto(`${app.url}${visit.open}`);
          status = res?.status() ?? 0;
        } else await visit.open(page);
        if (typeof visit.open === "string")
          assert.equal(status, visit.status ?? 200, `${visit.name}: HTTP status`);
        if (signedIn) assert.notEqual(new URL(page.url()).pathname, "/login", `${visit.name}: signed in`);
        assert.deepEqual(await pageProblems(page, phone), [], visit.name);
      });
    }
  } finally {
    await page.close();
  }
}

/** The walk's test title at `width` x `height` (a phone below 600 px wide: dark, narrow checks). */
export function walkTitle(width: number, height: number): string {
  const phone = width < 600;
  return `every page at ${width}x${height} (${phone ? "dark" : "light"}): axe, width, buttons, badges`;
}

/**
 * Walks every page at `width` x `height`, signed out then signed in, each page a subtest of `t` that fails
 * listing every problem found on it.
 */
export async function walkEveryPage(t: TestContext, width: number, height: number): Promise<void> {
  const phone = width < 600;
  const out = await browser.newContext({ viewport: { width, height } });
  const signedIn = await browser.newContext({ viewport: { width, height } });
  await preloadAxe(out);
  await preloadAxe(signedIn);
  try {
    await walk(t, out, SIGNED_OUT, phone, false);
    const page = await signedIn.newPage();
    await openSignedIn(page, `${app.url}/posts`, who);
    assert.equal(new URL(page.url()).pathname, "/posts");
    await page.close();
    await walk(t, signedIn, SIGNED_IN, phone, true);
  } finally {
    await out.close();
    await signedIn.close();
  }
}
