/**
 * The stylesheets of the browser pages, served from this origin (no CDN; the CSP allows `style-src 'self'`):
 *   GET /assets/pico.min.css   Pico CSS 2 (@picocss/pico, MIT): the design of semantic HTML, light and dark
 *                              by the system setting (`prefers-color-scheme`)
 *   GET /assets/app.css        our own small stylesheet (./assets/app.css): the site header, status badges,
 *                              network labels, slide grids, tables that stack into rows on phones
 * Both are read once at startup. Pages link them with `?v=<hash>` (`assetHref`), so a response to the
 * versioned URL is cached for a year (`immutable`); any other URL revalidates after five minutes. Every
 * response has a strong ETag and honours If-None-Match (304).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Router } from "express";
import { etagMatches, etagOf } from "./etag.ts";

interface Stylesheet {
  body: Buffer;
  etag: string;
  /** The first 12 characters of the base64url SHA-256 of the bytes (the `v` query of the page links). */
  version: string;
}

const require = createRequire(import.meta.url);

function load(path: string): Stylesheet {
  const body = readFileSync(path);
  const etag = etagOf(body);
  return { body, etag, version: etag.slice(1, 13) };
}

/** The served stylesheets by file name. */
const STYLESHEETS: Record<string, Stylesheet> = {
  "pico.min.css": load(require.resolve("@picocss/pico/css/pico.min.css")),
  "app.css": load(fileURLToPath(new URL("./assets/app.css", import.meta.url))),
};

/** The stylesheet names, in the order pages link them (ours last: it builds on Pico's variables). */
export const STYLESHEET_NAMES = ["pico.min.css", "app.css"] as const;

/** The versioned URL of stylesheet `name`: `/assets/{name}?v={version}`. */
export function assetHref(name: (typeof STYLESHEET_NAMES)[number]): string {
  return `/assets/${name}?v=${STYLESHEETS[name]!.version}`;
}

/** Seconds a versioned stylesheet is cached (a year), and an unversioned one (five minutes). */
const IMMUTABLE_MAX_AGE = 31536000;
const PLAIN_MAX_AGE = 300;

/** The router of GET /assets/{name}. */
export function assetRoutes(): Router {
  const router = Router();
  router.get("/assets/:name", (req, res, next) => {
    const sheet = Object.hasOwn(STYLESHEETS, req.params.name) ? STYLESHEETS[req.params.name] : undefined;
    if (!sheet) return next();
    const versioned = req.query.v === sheet.version;
    res.set({
      "Content-Type": "text/css; charset=utf-8",
      ETag: sheet.etag,
      "Cache-Control": versioned
        ? `public, max-age=${IMMUTABLE_MAX_AGE}, immutable`
        : `public, max-age=${PLAIN_MAX_AGE}`,
      "X-Content-Type-Options": "nosniff",
      "Cross-Origin-Resource-Policy": "same-origin",
    });
    if (etagMatches(req.get("if-none-match"), sheet.etag)) {
      res.status(304).end();
      return;
    }
    res.setHeader("Content-Length", String(sheet.body.length));
    res.status(200).end(req.method === "HEAD" ? undefined : sheet.body);
  });
  return router;
}
