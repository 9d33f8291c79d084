/**
 * Security headers of the browser pages: helmet with a strict CSP (`default-src 'none'`,
 * stylesheets of this origin only (`style-src 'self'`: no inline style anywhere, src/web/assets.ts),
 * forms to this origin, `frame-ancestors 'none'`), `X-Content-Type-Options: nosniff`,
 * `Referrer-Policy: same-origin` (authorization URLs carry `state`; `no-referrer` would make Chromium send `Origin: null` on form posts), HSTS on HTTPS, and `no-store` caching
 * (pages carry CSRF tokens). Other areas' pages (approval, media) can mount `pageHeaders(ctx)` too.
 */
import type { RequestHandler, Response } from "express";
import helmet from "helmet";
import type { AppContext } from "../context.ts";

/** The CSP directives; `formAction` lists extra origins forms may post or redirect to. */
export function cspDirectives(formAction: readonly string[] = []): Record<string, string[]> {
  return {
    "default-src": ["'none'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "media-src": ["'self'"],
    "form-action": ["'self'", ...formAction],
    "frame-ancestors": ["'none'"],
    "base-uri": ["'none'"],
  };
}

/** The CSP header value for `formAction` extra origins. */
export function cspHeader(formAction: readonly string[] = []): string {
  return Object.entries(cspDirectives(formAction))
    .map(([k, v]) => `${k} ${v.join(" ")}`)
    .join("; ");
}

/**
 * Lets a form on this page post or redirect to `origin` (the consent form's 303 goes to the client's
 * redirect URI; Chromium applies `form-action` to redirects of a form submission).
 */
export function allowFormActionTo(res: Response, origin: string): void {
  res.setHeader("Content-Security-Policy", cspHeader([origin]));
}

/** Middleware: the page headers above. */
export function pageHeaders(ctx: AppContext): RequestHandler {
  const https = ctx.config.publicBaseUrl.startsWith("https:");
  const h = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives() },
    referrerPolicy: { policy: "same-origin" },
    strictTransportSecurity: https ? { maxAge: 31536000 } : false,
    crossOriginEmbedderPolicy: false,
  });
  return (req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    h(req, res, next);
  };
}
