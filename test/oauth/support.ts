/**
 * HTTP-level OAuth client for the tests of test/oauth and test/web: a cookie-keeping fetch (no redirects
 * followed), login, registration, PKCE, the consent form (parsed with cheerio) and the token endpoint.
 * The end-to-end tests use the official SDK client and Chromium instead (test/helpers/oauth-flow.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import * as cheerio from "cheerio";
import type { TestApp } from "../helpers/app.ts";

/** A minimal browser: keeps cookies per name, never follows redirects. */
export class Jar {
  readonly cookies = new Map<string, string>();
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0)
      headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(new URL(path, this.base), { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** POSTs form fields. */
  post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return this.fetch(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** The fields of the first form of an HTML page (inputs with a name; radios: the checked one or the first). */
export function formFields(htmlText: string): Record<string, string> {
  const $ = cheerio.load(htmlText);
  const out: Record<string, string> = {};
  $("form")
    .first()
    .find("input[name]")
    .each((_, el) => {
      const name = $(el).attr("name")!;
      const type = $(el).attr("type");
      if (type === "radio" && out[name] !== undefined && $(el).attr("checked") === undefined) return;
      out[name] = $(el).attr("value") ?? "";
    });
  return out;
}

/** Logs `jar` in; returns the final response (303 on success). */
export async function login(jar: Jar, email: string, password: string, returnTo?: string): Promise<Response> {
  const page = await jar.fetch(`/login${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ""}`);
  const fields = formFields(await page.text());
  return jar.post("/login", { ...fields, email, password });
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface Client {
  client_id: string;
  redirect_uris: string[];
}

/** Registers a client (default redirect `http://127.0.0.1:9/callback`). */
export async function register(app: TestApp, body: Record<string, unknown> = {}): Promise<Client> {
  const res = await fetch(`${app.url}/mcp/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test agent",
      redirect_uris: ["http://127.0.0.1:9/callback"],
      ...body,
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Client;
}

/** Authorization request query for `client` (overridable; `undefined` values are dropped). */
export function authorizeQuery(
  app: TestApp,
  client: Client,
  p: Pkce,
  over: Record<string, string | undefined> = {},
): string {
  const q: Record<string, string | undefined> = {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0],
    resource: app.resource,
    scope: "read:profile read:content",
    state: "st-123",
    code_challenge: p.challenge,
    code_challenge_method: "S256",
    ...over,
  };
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, v);
  return `/mcp/oauth/authorize?${params}`;
}

export interface CodeResult {
  code: string;
  location: URL;
  pkce: Pkce;
  client: Client;
  redirectUri: string;
}

/**
 * Logs in (when `jar` has no session), opens the consent page, approves for `workspaceId` and returns the
 * code from the redirect.
 */
export async function obtainCode(
  app: TestApp,
  jar: Jar,
  who: { email: string; password: string; workspace_id: string },
  options: { client?: Client; query?: Record<string, string | undefined> } = {},
): Promise<CodeResult> {
  const client = options.client ?? (await register(app));
  const p = pkce();
  if (!jar.cookies.has("smcp_session")) {
    const res = await login(jar, who.email, who.password);
    if (res.status !== 303) throw new Error(`login failed: ${res.status}`);
  }
  const consent = await jar.fetch(authorizeQuery(app, client, p, options.query));
  if (consent.status !== 200)
    throw new Error(`consent page: ${consent.status} ${consent.headers.get("location")}`);
  const fields = formFields(await consent.text());
  const res = await jar.post("/mcp/oauth/authorize", {
    ...fields,
    workspace_id: who.workspace_id,
    decision: "approve",
  });
  if (res.status !== 303) throw new Error(`approve: ${res.status} ${await res.text()}`);
  const location = new URL(res.headers.get("location")!);
  const code = location.searchParams.get("code");
  if (!code) throw new Error(`no code: ${location}`);
  return {
    code,
    location,
    pkce: p,
    client,
    redirectUri: options.query?.redirect_uri ?? client.redirect_uris[0]!,
  };
}

/** POSTs form fields to the token endpoint; returns status and parsed JSON. */
export async function tokenRequest(
  app: TestApp,
  fields: Record<string, string | undefined>,
): Promise<{ status: number; body: any; headers: Headers }> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) params.set(k, v);
  const res = await fetch(`${app.url}/mcp/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: params.toString(),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Exchanges a code with the right parameters unless overridden. */
export function exchange(app: TestApp, r: CodeResult, over: Record<string, string | undefined> = {}) {
  return tokenRequest(app, {
    grant_type: "authorization_code",
    client_id: r.client.client_id,
    redirect_uri: r.redirectUri,
    code: r.code,
    code_verifier: r.pkce.verifier,
    resource: app.resource,
    ...over,
  });
}

/** Full flow: a code exchanged for tokens. */
export async function obtainTokens(
  app: TestApp,
  jar: Jar,
  who: { email: string; password: string; workspace_id: string },
  options: { client?: Client; query?: Record<string, string | undefined> } = {},
) {
  const r = await obtainCode(app, jar, who, options);
  const t = await exchange(app, r);
  if (t.status !== 200) throw new Error(`exchange: ${t.status} ${JSON.stringify(t.body)}`);
  return {
    ...r,
    tokens: t.body as { access_token: string; refresh_token: string; scope: string; expires_in: number },
  };
}

/** Raised limits so that a test file's many requests from 127.0.0.1 are not throttled. */
export const HIGH_LIMITS = {
  RATE_LIMIT_OAUTH: "100000",
  RATE_LIMIT_REGISTER: "100000",
  RATE_LIMIT_REGISTER_HOUR: "100000",
  RATE_LIMIT_REGISTER_IP_HOUR: "99999",
  RATE_LIMIT_BROWSER: "100000",
};
