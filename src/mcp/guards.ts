/**
 * Origin guard of the MCP endpoint (service spec 5.12: absent -> allowed, not allow-listed -> 403) and CORS
 * for allow-listed origins only; the per-IP limit of /mcp (service spec 8). The Host check and the OAuth
 * challenges live in src/oauth/ (host.ts, challenge.ts), shared with the metadata routes.
 */
import cors from "cors";
import type { RequestHandler } from "express";
import type { AppContext } from "../context.ts";
import { createLimiter, type Limiter, type LimitVerdict } from "../runtime/rate-limit.ts";

/** The loopback names of one machine (RFC 6761 `localhost`, 127.0.0.1, ::1). */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * True when `origin` is a loopback origin (http or https; localhost, 127.0.0.1 or [::1]) whose host and port
 * are exactly the request's own `Host` header: a page served by this very server. A DNS-rebinding page
 * carries its own name in both Origin and Host, never a loopback name in Origin and its name in Host.
 */
export function isLoopbackSameHost(origin: string, hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.origin !== origin.toLowerCase().replace(/\/$/, "")) return false;
  if (!LOOPBACK_NAMES.has(url.hostname)) return false;
  return url.host === hostHeader.toLowerCase();
}

/**
 * Origin validation + CORS (MCP transports "Security": validate Origin, 403 when present and invalid):
 *  - no Origin passes (native clients);
 *  - the service's own origins pass without CORS headers (same-origin requests need none): the origin of the
 *    configured public base URL and of the resource URL, and a loopback origin (localhost, 127.0.0.1, [::1])
 *    equal to the request's own Host (a local deployment reached by that name);
 *  - an allow-listed Origin (CORS_ALLOWED_ORIGINS) gets CORS headers (never a wildcard, no credentials: the
 *    bearer token is not a cookie) exposing `WWW-Authenticate`, `Mcp-Protocol-Version` and `Mcp-Session-Id` (the
 *    id that tells a legacy request's client shows MCP Apps views, src/mcp/apps/client.ts);
 *  - any other Origin is refused with 403.
 * The Host check (404 for a foreign Host) runs before this guard (src/oauth/host.ts).
 */
export function originGuard(ctx: AppContext): RequestHandler {
  const allowed = new Set(ctx.config.corsAllowedOrigins);
  const own = new Set([new URL(ctx.config.publicBaseUrl).origin, new URL(ctx.config.resourceUrl).origin]);
  const corsHandler = cors({
    origin: [...allowed],
    methods: ["POST"],
    allowedHeaders: [
      "Authorization",
      "Content-Type",
      "Accept",
      "Mcp-Protocol-Version",
      "Mcp-Method",
      "Mcp-Name",
      "Mcp-Session-Id",
    ],
    exposedHeaders: ["WWW-Authenticate", "Mcp-Protocol-Version", "Mcp-Session-Id"],
    credentials: false,
    maxAge: 600,
  });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    if (!allowed.has(origin) && (own.has(origin) || isLoopbackSameHost(origin, req.headers.host)))
      return next();
    if (!allowed.has(origin)) {
      res.status(403).json({ error: "forbidden", error_description: "Origin not allowed" });
      return;
    }
    corsHandler(req, res, next);
  };
}

/** The per-IP limiter of /mcp, and a local hint of which IPs are over it in their current window. */
export interface IpLimiter extends Limiter {
  /** Feeds the hint below with the verdict of a count made inside another statement. */
  record(ip: string, verdict: LimitVerdict): void;
  /**
   * True when this process saw `ip` refused and its window has not ended: the next consume will be refused
   * too (counts only grow within a window), so the endpoint skips work it would throw away. A hint only:
   * the answer always comes from the shared count.
   */
  isLimited(ip: string): boolean;
}

/** Bound of the hint map (entries; cleared when full, which only costs a lookup per cleared IP). */
const MAX_LIMITED_IPS = 10_000;

/** Builds the per-IP limiter of /mcp (`mcp:ip`, `limits.mcpPerIp` requests per minute), once per router. */
export function ipLimiter(ctx: AppContext): IpLimiter {
  const limiter = createLimiter(ctx, "mcp:ip", ctx.config.limits.mcpPerIp);
  const limitedUntil = new Map<string, number>();
  const record = (ip: string, r: LimitVerdict): void => {
    if (r.ok) return;
    if (limitedUntil.size >= MAX_LIMITED_IPS) limitedUntil.clear();
    limitedUntil.set(ip, Date.now() + r.retryAfter * 1000 - 1000);
  };
  return {
    spec: limiter.spec,
    record,
    async consume(ip) {
      const r = await limiter.consume(ip);
      record(ip, r);
      return r;
    },
    isLimited(ip) {
      const until = limitedUntil.get(ip);
      if (until === undefined) return false;
      if (until > Date.now()) return true;
      limitedUntil.delete(ip);
      return false;
    },
  };
}

/** A promise's outcome as a value (so that a lookup started early never becomes an unhandled rejection). */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}
