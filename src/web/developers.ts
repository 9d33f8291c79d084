/**
 * The public developer reference (service spec 4.6), mounted only when MCP is enabled (404 otherwise):
 * - GET /developers/mcp               HTML guide + tool reference searchable in the page
 * - GET /developers/mcp/catalog.json  generated/catalog.json, byte for byte
 * - GET /developers/mcp/guide.md      generated/guide.md
 * - GET /developers/mcp/download.zip  the reproducible bundle; limited per client IP (default 5 per minute,
 *                                     RATE_LIMIT_DOWNLOAD) with 429 and Retry-After
 * Every response has a strong ETag (SHA-256 of the bytes), honours If-None-Match with 304 and is cacheable
 * for five minutes. The page's CSP allows only its own inline script, by hash, and this origin's stylesheets.
 */
import { type Request, type RequestHandler, type Response, Router } from "express";
import helmet from "helmet";
import type { AppContext } from "../context.ts";
import { logError } from "../log.ts";
import { rateLimit } from "../runtime/rate-limit.ts";
import { etagMatches } from "./etag.ts";
import { type Asset, loadReferenceAssets, type ReferenceAssets } from "./reference/files.ts";

/** Cache lifetime of the reference responses, in seconds. */
export const REFERENCE_MAX_AGE = 300;

function send(
  req: Request,
  res: Response,
  asset: Asset,
  type: string,
  headers: Record<string, string> = {},
): void {
  res.setHeader("ETag", asset.etag);
  res.setHeader("Cache-Control", `public, max-age=${REFERENCE_MAX_AGE}`);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (etagMatches(req.get("if-none-match"), asset.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).setHeader("Content-Type", type);
  res.setHeader("Content-Length", String(asset.body.length));
  res.end(req.method === "HEAD" ? undefined : asset.body);
}

const baseHelmet = (scriptSrc: string[], styleSrc: string[]) =>
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc,
        styleSrc,
        imgSrc: ["'self'", "data:"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
    crossOriginResourcePolicy: { policy: "cross-origin" },
  });

/**
 * Builds the router; the generated files are read (`load`, default `loadReferenceAssets`) on the first
 * request and kept. A failed read is logged by class and code only and tried again on the next request.
 */
export function developerRoutes(
  ctx: AppContext,
  load: () => Promise<ReferenceAssets> = loadReferenceAssets,
): Router {
  const router = Router();
  if (!ctx.config.mcpEnabled) return router;

  type Loaded = ReferenceAssets & { pageHelmet: RequestHandler };
  let loading: Promise<Loaded> | undefined;
  const assets = () => {
    loading ??= load().then(
      (a) => ({ ...a, pageHelmet: baseHelmet([a.page.scriptHash], ["'self'"]) }),
      (err: unknown) => {
        loading = undefined;
        // Class and code only (service spec 7 rule 7); the message, redacted, at debug level.
        logError(ctx.log, err, {}, "developer reference unavailable (run npm run codegen)");
        throw err;
      },
    );
    return loading;
  };
  const serve =
    (pick: (a: ReferenceAssets) => Asset, type: string, headers?: Record<string, string>): RequestHandler =>
    async (req, res) => {
      send(req, res, pick(await assets()), type, headers);
    };

  const dataHelmet = baseHelmet(["'none'"], ["'none'"]);
  router.get(
    "/developers/mcp",
    async (req, res, next) => (await assets()).pageHelmet(req, res, next),
    async (req, res) => send(req, res, (await assets()).page, "text/html; charset=utf-8"),
  );
  router.get(
    "/developers/mcp/catalog.json",
    dataHelmet,
    serve((a) => a.catalog, "application/json; charset=utf-8"),
  );
  router.get(
    "/developers/mcp/guide.md",
    dataHelmet,
    serve((a) => a.guide, "text/markdown; charset=utf-8"),
  );
  router.get(
    "/developers/mcp/download.zip",
    dataHelmet,
    rateLimit(ctx, "download", ctx.config.limits.download),
    serve((a) => a.bundle, "application/zip", {
      "Content-Disposition": 'attachment; filename="social-mcp-reference.zip"',
    }),
  );
  return router;
}
