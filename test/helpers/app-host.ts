/**
 * An MCP Apps host for tests: an MCP client of the running service that declares the UI extension
 * (`viewsClient`), and a host page in headless Chromium (`openAppHost`) built on the official `AppBridge`
 * (test/helpers/app-host-page.ts, bundled here with esbuild) that shows a view in a sandboxed iframe with the
 * CSP of its `_meta.ui.csp`. The view's `tools/call` goes back to the service through the client; its
 * `ui/open-link` opens the URL in a new tab. Everything the view does is recorded: tool calls, links,
 * console errors and the requests of its frame.
 */
import { copyFile, mkdir, mkdtemp } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import { build } from "esbuild";
import type { Browser, BrowserContext, FrameLocator, Page } from "playwright-core";
import type { Plan } from "../../src/domain/account/plans.ts";
import { waitFor } from "../operations/helpers.ts";
import { startTestApp } from "./app.ts";
import { launchBrowser, requireChromium } from "./browser.ts";
import { rpc, type RpcOptions } from "./mcp-client.ts";
import { connect } from "./tokens.ts";
import type { ShowView } from "./app-host-page.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The capabilities of a client that shows views (MCP Apps spec "Client<>Server Capability Negotiation"). */
export const VIEWS_CAPABILITIES = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
};

/** An MCP client (revision 2026-07-28) of `resource` with `token` that shows views. */
export function viewsClient(resource: string, token: string) {
  const options = (): RpcOptions => ({
    token,
    meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": VIEWS_CAPABILITIES,
      "io.modelcontextprotocol/clientInfo": { name: "apps-test-host", version: "1.0.0" },
    },
  });
  const call = async (method: string, params: Record<string, unknown>) => {
    const r = await rpc(resource, method, params, options());
    if (r.status !== 200 || r.body?.error)
      throw new Error(`${method} answered ${r.status}: ${JSON.stringify(r.body?.error ?? r.text)}`);
    return r.body.result;
  };
  return {
    call,
    callTool: (name: string, args: Record<string, unknown>) => call("tools/call", { name, arguments: args }),
    async readView(uri: string): Promise<{ html: string; csp: ShowView["csp"] }> {
      const result = await call("resources/read", { uri });
      const [contents] = result.contents;
      return { html: contents.text, csp: contents._meta?.ui?.csp };
    },
    async viewOf(tool: string): Promise<string> {
      const tools: any[] = [];
      let cursor: string | undefined;
      do {
        const page = await call("tools/list", cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      const uri = tools.find((t) => t.name === tool)?._meta?.ui?.resourceUri;
      if (!uri) throw new Error(`${tool} has no view in tools/list`);
      return uri;
    },
  };
}

let bundle: Promise<string> | undefined;

/** The host page's script (AppBridge and the page logic), bundled once per process. */
function hostScript(): Promise<string> {
  bundle ??= build({
    entryPoints: [path.join(HERE, "app-host-page.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "chrome120",
    write: false,
    logLevel: "silent",
  }).then((out) => out.outputFiles[0]!.text.replace(/<\/(script)/gi, "<\\/$1"));
  return bundle;
}

export interface AppHost {
  context: BrowserContext;
  page: Page;
  /** The view's frame. */
  view: FrameLocator;
  /** tools/call the view made, in order. */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  /** When each of `calls` arrived (ms since the epoch). */
  callTimes: number[];
  /** URLs the view asked the host to open. */
  links: string[];
  /** Console errors and page errors of the page and the view. */
  errors: string[];
  /** URLs requested from inside the view's frame. */
  viewRequests: string[];
  /** Shows a view with a tool's input and result and waits until it initialized with the host. */
  show(o: ShowView): Promise<void>;
}

/**
 * Opens the host page in a new browser context (`viewport` default 1280x800). `callTool` serves the view's
 * tools/call (usually `viewsClient(...).callTool`).
 */
export async function openAppHost(
  browser: Browser,
  callTool: (name: string, args: Record<string, unknown>) => Promise<unknown>,
  viewport = { width: 1280, height: 800 },
): Promise<AppHost> {
  const script = await hostScript();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title>` +
        `<style>body{font:14px system-ui;margin:16px;max-width:720px}</style></head>` +
        `<body><div id="host"></div><script type="module">${script}</script></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Only the browser talks to it: it must never keep the test process alive.
  server.unref();
  const hostUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const context = await browser.newContext({ viewport });
  after(async () => {
    await context.close().catch(() => {});
    server.closeAllConnections();
    server.close();
  });
  const page = await context.newPage();
  const host: AppHost = {
    context,
    page,
    view: page.frameLocator("#host iframe"),
    calls: [],
    callTimes: [],
    links: [],
    errors: [],
    viewRequests: [],
    async show(o) {
      // Serialized by hand: Playwright's deep argument types do not terminate on the SDK's types.
      await page.evaluate((json: string) => window.showView(JSON.parse(json)), JSON.stringify(o));
      await page.waitForFunction(() => window.viewInitialized, undefined, { timeout: 30_000 });
    },
  };
  page.on("console", (m) => {
    if (m.type() === "error") host.errors.push(m.text());
  });
  page.on("pageerror", (e) => host.errors.push(e.message));
  page.on("request", (r) => {
    if (r.frame() !== page.mainFrame()) host.viewRequests.push(r.url());
  });
  await page.exposeFunction("hostCallTool", async (name: string, args: Record<string, unknown>) => {
    host.calls.push({ name, args });
    host.callTimes.push(Date.now());
    return callTool(name, args);
  });
  await page.exposeFunction("hostOpenLink", async (url: string) => {
    host.links.push(url);
    const tab = await context.newPage();
    await tab.goto(url).catch(() => {});
  });
  await page.exposeFunction("hostLog", async () => {});
  await page.goto(hostUrl);
  return host;
}

/**
 * Screenshots the view's frame as `<name>.png` into a temp directory (returned), and into docs/screenshots/
 * when UPDATE_SCREENSHOTS=1 (the README's pictures of the views).
 */
export async function screenshotView(host: AppHost, name: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-views-"));
  const file = path.join(dir, `${name}.png`);
  await host.page.locator("#host iframe").screenshot({ path: file });
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    const docs = path.join(HERE, "../../docs/screenshots");
    await mkdir(docs, { recursive: true });
    await copyFile(file, path.join(docs, `${name}.png`));
  }
  return file;
}

/** The URLs the view's frame requested outside `allowed` prefixes (its own srcdoc document is always allowed). */
export function requestsOutside(host: AppHost, allowed: string[]): string[] {
  return host.viewRequests.filter(
    (u) => u !== "about:srcdoc" && !u.startsWith("data:") && !allowed.some((p) => u.startsWith(p)),
  );
}

/**
 * What every view test starts from: the service (`app` options of startTestApp), headless Chromium, an owner
 * (`plan`), a client with `scopes` that shows views, and the prefix of the service's signed media URLs.
 */
export async function appsWorld(options: {
  app?: Parameters<typeof startTestApp>[0];
  plan?: Plan;
  scopes: string[];
}) {
  requireChromium();
  const app = await startTestApp(options.app);
  const browser = await launchBrowser();
  const owner = await app.user(options.plan ? { plan: options.plan } : {});
  const { token } = await connect(app, owner, options.scopes);
  return { app, browser, owner, client: viewsClient(app.resource, token), media: `${app.url}/media/public/` };
}

/** Polls a tool every second (an agent's pace, within the read budget) until `done`, for at most 3 minutes. */
export function pollEverySecond<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  return waitFor(read, done, 180_000, 1000);
}

/**
 * What a person does with a view's approval block: clicks "Review and approve" (the host opens the link in a
 * new tab), and, when `owner` is given, signs in there and approves on the service's approval page.
 * @returns the tab, on the login page (no `owner`) or on the approved request.
 */
export async function followApproval(
  host: AppHost,
  approvalUrl: string,
  owner?: { email: string; password: string },
): Promise<Page> {
  const opened = host.context.waitForEvent("page");
  await host.view.getByRole("button", { name: "Review and approve" }).click();
  const tab = await opened;
  await tab.waitForURL((u) => u.pathname === "/login");
  if (!owner) return tab;
  await tab.fill('input[name="email"]', owner.email);
  await tab.fill('input[name="password"]', owner.password);
  await Promise.all([
    tab.waitForURL((u) => u.pathname === new URL(approvalUrl).pathname),
    tab.click('button[type="submit"]'),
  ]);
  await Promise.all([
    tab.waitForURL((u) => u.searchParams.get("result") === "approved"),
    tab.click('button[name="decision"][value="approve"]'),
  ]);
  return tab;
}
