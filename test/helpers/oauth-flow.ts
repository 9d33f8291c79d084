/**
 * Real OAuth for end-to-end tests: the official MCP SDK client (`auth()` with an in-memory
 * `OAuthClientProvider`) does discovery (from the 401 challenge of POST /mcp when the MCP endpoint answers
 * one, else from the protected resource metadata), dynamic registration, PKCE and the resource indicator;
 * headless Chromium signs in, picks the workspace and approves; the SDK exchanges the code.
 *
 *   const browser = await launchBrowser();
 *   const { tokens, provider } = await authorizeThroughBrowser(app, browser, user, { scope: "read:profile" });
 *   await refreshThroughSdk(app, provider); // rotates the refresh token
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";
import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser } from "playwright-core";
import type { TestApp } from "./app.ts";
import { openSignedIn } from "./browser.ts";

/** An OAuthClientProvider that keeps everything in memory and records the authorization URL. */
export class InMemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  readonly expectedState: string;
  readonly redirect: string;
  readonly metadataOverrides: Partial<OAuthClientMetadata>;

  constructor(redirect: string, metadataOverrides: Partial<OAuthClientMetadata> = {}) {
    this.redirect = redirect;
    this.metadataOverrides = metadataOverrides;
    this.expectedState = crypto.randomUUID();
  }

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK e2e agent",
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...this.metadataOverrides,
    };
  }
  state(): string {
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** A loopback HTTP server standing in for the client's redirect URI; resolves with each callback URL. */
export async function startCallbackServer(): Promise<{
  url: string;
  next(): Promise<URL>;
  close(): Promise<void>;
}> {
  const waiting: Array<(u: URL) => void> = [];
  const received: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    res
      .writeHead(200, { "content-type": "text/html" })
      .end("<!doctype html><title>done</title><p>You can close this window.</p>");
    const w = waiting.shift();
    if (w) w(url);
    else received.push(url);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  after(close);
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const r = received.shift();
      return r ? Promise.resolve(r) : new Promise<URL>((resolve) => waiting.push(resolve));
    },
    close,
  };
}

/**
 * The RFC 9728 metadata URL from the MCP endpoint's 401 challenge, or undefined when the endpoint does
 * not answer one yet (the SDK then tries the well-known URLs itself).
 */
export async function challengeMetadataUrl(app: ServiceUrls): Promise<URL | undefined> {
  const res = await fetch(app.resource, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
    }),
  });
  await res.body?.cancel();
  if (res.status !== 401) return undefined;
  return extractWWWAuthenticateParams(res).resourceMetadataUrl;
}

/** Where the service is: its base URL and MCP resource (a TestApp, or a cluster behind a proxy). */
export type ServiceUrls = Pick<TestApp, "url" | "resource">;

export interface BrowserFlowResult {
  provider: InMemoryOAuthProvider;
  tokens: OAuthTokens;
  /** The URL Chromium was redirected to (carries `code`, `state`, `iss`). */
  callback: URL;
  resourceMetadataUrl: URL | undefined;
}

/**
 * Runs the whole flow: SDK discovery + registration + PKCE, Chromium login + workspace choice + approval,
 * SDK code exchange. `scope` is passed to `auth()` (default: the metadata's `scopes_supported`).
 * @throws when any step fails (with the page text when the browser did not reach the callback).
 */
export async function authorizeThroughBrowser(
  app: ServiceUrls,
  browser: Browser,
  who: { email: string; password: string; workspace_id: string },
  options: { scope?: string; provider?: InMemoryOAuthProvider } = {},
): Promise<BrowserFlowResult> {
  const callback = await startCallbackServer();
  const provider = options.provider ?? new InMemoryOAuthProvider(callback.url);
  const resourceMetadataUrl = await challengeMetadataUrl(app);
  const first = await auth(provider, {
    serverUrl: app.resource,
    ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    ...(options.scope ? { scope: options.scope } : {}),
  });
  if (first !== "REDIRECT" || !provider.authorizationUrl)
    throw new Error(`auth() returned ${first} without a redirect`);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await openSignedIn(page, provider.authorizationUrl.toString(), who);
    await page.check(`input[name="workspace_id"][value="${who.workspace_id}"]`);
    const arrived = callback.next();
    await page.click('button[name="decision"][value="approve"]');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), 30_000);
    });
    const url = await Promise.race([arrived, timeout]).finally(() => clearTimeout(timer));
    if (url === "timeout")
      throw new Error(`no callback within 30 s; the page says: ${await page.textContent("body")}`);
    if (url.searchParams.get("state") !== provider.expectedState)
      throw new Error("state mismatch on the callback");
    const code = url.searchParams.get("code");
    if (!code) throw new Error(`authorization failed: ${url.searchParams.get("error")}`);
    const second = await auth(provider, {
      serverUrl: app.resource,
      authorizationCode: code,
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    });
    if (second !== "AUTHORIZED" || !provider.saved) throw new Error(`code exchange returned ${second}`);
    return { provider, tokens: provider.saved, callback: url, resourceMetadataUrl };
  } finally {
    await context.close();
    await callback.close();
  }
}

/** Makes the SDK refresh (rotate) the provider's tokens; returns the new tokens. */
export async function refreshThroughSdk(app: TestApp, provider: InMemoryOAuthProvider): Promise<OAuthTokens> {
  const before = provider.saved?.refresh_token;
  const result = await auth(provider, { serverUrl: app.resource });
  if (result !== "AUTHORIZED" || !provider.saved || provider.saved.refresh_token === before)
    throw new Error(`refresh did not rotate the tokens (${result})`);
  return provider.saved;
}
