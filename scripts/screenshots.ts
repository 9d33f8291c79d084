/**
 * `npm run screenshots`: screenshots of every browser page at a desktop size (1280 x 800) and a phone size
 * (390 x 844), written to docs/screenshots/{page}-desktop.png and {page}-phone.png (the README shows three).
 *
 * It starts the service in this process on a fresh database (a new database on DATABASE_URL's server or on
 * a PostgreSQL at 127.0.0.1:5432 when one answers, dropped afterwards; else an embedded PostgreSQL in a
 * temporary directory), seeds the demo workspace with its activity (`admin demo`, src/cli/demo.ts: posts, a
 * schedule, published and failed deliveries, sandbox accounts, media, a request waiting for approval),
 * registers an MCP client for the consent page, and drives headless Chromium (playwright-core with the
 * system's chromium, or CHROMIUM_PATH). Tall pages are cut at 2,400 px; images are written as palette PNGs
 * (sharp) to keep the repository small. Everything runs offline.
 *
 * Usage: npm run screenshots [-- --out DIR]
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { chromium, type Page } from "playwright-core";
import sharp from "sharp";
import { boot } from "../src/bootstrap.ts";
import { runDemo } from "../src/cli/demo.ts";
import { postgresAnswers } from "../src/db/embedded.ts";
import { callbackUrl } from "../src/domain/social/connect.ts";
import { startServer } from "../src/server.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;
/** Full-page screenshots are cut at this height, pixels. */
const MAX_HEIGHT = 2400;

/** A fresh database on an existing server (dropped by the returned function), or undefined for embedded. */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  const admin = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  if (!(await postgresAnswers(admin))) return undefined;
  const name = `smcp_screenshots_${process.pid}`;
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`drop database if exists ${name}`);
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}

/** The page list: file name and path (or steps that end on the page). */
function pages(ids: {
  posts: string[];
  activity: Record<string, any>;
  consent: string;
  sandboxConsent: string;
}): Array<{ name: string; open: string | ((page: Page, base: string) => Promise<void>); signedIn: boolean }> {
  return [
    { name: "landing", open: "/", signedIn: false },
    { name: "login", open: "/login", signedIn: false },
    { name: "developers", open: "/developers/mcp", signedIn: false },
    {
      name: "sandbox-post",
      open: `/sandbox/linkedin/${ids.activity.published_deliveries[0]}`,
      signedIn: false,
    },
    { name: "consent", open: ids.consent, signedIn: true },
    { name: "posts", open: "/posts", signedIn: true },
    { name: "cancel-schedule", open: `/posts/schedules/${ids.activity.schedule_id}/cancel`, signedIn: true },
    { name: "connections", open: "/settings/integrations/mcp", signedIn: true },
    {
      name: "request",
      open: `/settings/integrations/mcp/requests/${ids.activity.pending_request}`,
      signedIn: true,
    },
    { name: "media", open: "/media", signedIn: true },
    { name: "social-accounts", open: "/settings/social", signedIn: true },
    { name: "sandbox-consent", open: ids.sandboxConsent, signedIn: true },
    { name: "review", open: "/review", signedIn: true },
    { name: "review-form", open: `/review/posts/${ids.posts[2]}`, signedIn: true },
    { name: "settings", open: "/settings", signedIn: true },
  ];
}

async function main(): Promise<void> {
  const outFlag = process.argv.indexOf("--out");
  const out = path.resolve(outFlag > 0 ? process.argv[outFlag + 1]! : "docs/screenshots");
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is needed at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  await mkdir(out, { recursive: true });

  const dataDir = await mkdtemp(path.join(os.tmpdir(), "smcp-screenshots-"));
  const database = await freshDatabase();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const booted = await boot({
    env: {
      LOG_LEVEL: "warn",
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL: base,
      ...(database ? { DATABASE_URL: database.url } : {}),
    },
  });
  const running = await startServer(booted.ctx, server);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  try {
    const who = { email: "demo@example.com", password: randomBytes(12).toString("base64url") };
    const demo = (await runDemo(
      booted.ctx.db,
      ["--email", who.email, "--password", who.password],
      booted.ctx.config,
      booted.ctx,
    )) as Record<string, any>;
    const registered = await fetch(`${base}/mcp/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Claude Desktop",
        redirect_uris: ["http://127.0.0.1:33418/callback"],
      }),
    });
    const client = (await registered.json()) as { client_id: string };
    const consent = `/mcp/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "http://127.0.0.1:33418/callback",
      resource: booted.ctx.config.resourceUrl,
      scope: "read:profile read:content create:content publish:content schedule:content",
      state: "screenshots",
      code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
      code_challenge_method: "S256",
    })}`;
    const sandboxConsent = `/sandbox/instagram/authorize?${new URLSearchParams({
      redirect_uri: callbackUrl(base, "instagram"),
      state: "screenshots",
      response_type: "code",
    })}`;
    const list = pages({ posts: demo.posts, activity: demo.activity, consent, sandboxConsent });

    for (const size of SIZES) {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const login = await context.newPage();
      await login.goto(`${base}/login`);
      await login.fill('input[name="email"]', who.email);
      await login.fill('input[name="password"]', who.password);
      await Promise.all([
        login.waitForURL((u) => u.pathname !== "/login"),
        login.click('button[type="submit"]'),
      ]);
      await login.close();
      const anonymous = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      for (const entry of list) {
        const page = await (entry.signedIn ? context : anonymous).newPage();
        if (typeof entry.open === "string") await page.goto(`${base}${entry.open}`);
        else await entry.open(page, base);
        await page.waitForLoadState("load");
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        const shot = await page.screenshot({
          fullPage: true,
          clip: { x: 0, y: 0, width: size.width, height: Math.min(height, MAX_HEIGHT) },
          animations: "disabled",
          caret: "hide",
        });
        const file = path.join(out, `${entry.name}-${size.name}.png`);
        await writeFile(
          file,
          await sharp(shot).png({ palette: true, quality: 95, compressionLevel: 9 }).toBuffer(),
        );
        console.log(path.relative(process.cwd(), file));
        await page.close();
      }
      await anonymous.close();
      await context.close();
    }
  } finally {
    await browser.close();
    await running.close(1);
    await booted.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
