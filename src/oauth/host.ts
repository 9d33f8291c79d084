/**
 * Host checks (DNS-rebinding defence, service spec 7 "404 ... when the host does not match the configured
 * resource"). The MCP endpoint and the OAuth/metadata routes answer 404 to a request whose `Host` is not
 * the host of the configured URL.
 */
import type { Request } from "express";
import type { AppContext } from "../context.ts";

/** `host[:port]` of `url` in URL canonical form (lowercase, default port dropped). */
function canonicalHost(url: URL): string {
  return url.host.toLowerCase();
}

/** The loopback names of one machine; a local deployment answers on all of them (same port). */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Same host, or both loopback names with the same port: `http://localhost:3000` is also reached as
 * `127.0.0.1:3000`. This keeps the DNS-rebinding defence: a rebinding page sends its own name as Host.
 */
function sameHost(actual: URL, expected: URL): boolean {
  if (canonicalHost(actual) === canonicalHost(expected)) return true;
  return LOOPBACK.has(actual.hostname) && LOOPBACK.has(expected.hostname) && actual.port === expected.port;
}

/**
 * True when the request's Host (Express 5 `req.host`: `X-Forwarded-Host` only when `TRUST_PROXY` is set)
 * equals the host of one of `urls` (default: the configured MCP resource URL). Default ports compare equal
 * (`example.com:443` matches `https://example.com`); loopback names are aliases of each other (same port). A missing or malformed Host never matches.
 */
export function hostMatches(
  ctx: AppContext,
  req: Request,
  urls: readonly string[] = [ctx.config.resourceUrl],
): boolean {
  const raw = req.host;
  if (!raw || /[\s/\\@?#]/.test(raw)) return false;
  for (const u of urls) {
    const expected = new URL(u);
    let actual: URL;
    try {
      actual = new URL(`${expected.protocol}//${raw}`);
    } catch {
      return false;
    }
    if (sameHost(actual, expected)) return true;
  }
  return false;
}

/** The URLs whose hosts the OAuth and metadata routes answer on: the resource, the base URL and the issuer. */
export function oauthHosts(ctx: AppContext): string[] {
  return [ctx.config.resourceUrl, ctx.config.publicBaseUrl, ctx.config.issuerUrl];
}
