/**
 * The Express application: one router per area, mounted in a fixed order. Each area owns its own
 * security headers, body parsing and rate limits (the MCP endpoint needs JSON with a 256 KiB limit, the
 * token endpoint form data, the browser pages CSRF); this file only assembles them.
 */
import { randomUUID } from "node:crypto";
import express, { type ErrorRequestHandler, type Express } from "express";
import type { AppContext } from "./context.ts";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from "./db/unavailable.ts";
import { logError } from "./log.ts";
import { developerRoutes } from "./web/developers.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { operationRoutes } from "./web/approval-routes.ts";
import { browserRoutes } from "./web/routes.ts";
import { mediaRoutes } from "./web/media.ts";
import { previewRoutes } from "./web/previews.ts";
import { mediaPublicRoutes } from "./web/media-public.ts";
import { sandboxRoutes } from "./web/sandbox.ts";
import { socialSettingsRoutes } from "./web/social-settings.ts";

/** Builds the app for `ctx`. Does not listen. */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", ctx.config.trustProxy);
  app.set("etag", false);
  app.use((req, res, next) => {
    // Access log: method, path without the query string (a token may hide there), status, duration (ms).
    // Never headers or bodies (service spec 7 rule 7). Each request gets an id for its log lines.
    const started = performance.now();
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    res.on("finish", () => {
      ctx.log.info(
        {
          requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
        },
        "request",
      );
    });
    next();
  });
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.use(mcpRoutes(ctx));
  app.use(oauthRoutes(ctx));
  app.use(developerRoutes(ctx));
  app.use(browserRoutes(ctx));
  app.use(operationRoutes(ctx));
  app.use(previewRoutes(ctx));
  app.use(mediaPublicRoutes(ctx));
  app.use(mediaRoutes(ctx));
  app.use(socialSettingsRoutes(ctx));
  app.use(sandboxRoutes(ctx));
  app.use((_req, res) => {
    res.status(404).type("text/plain").send("Not found");
  });
  app.use(errorHandler(ctx));
  return app;
}

/**
 * The last error handler: 4xx errors raised by middleware (status on the error) answer "Bad request",
 * anything else 500 "Internal error". A 5xx is logged with the error class, its code and the request id
 * only (an exception message can carry user data); message and stack, redacted, only at debug level.
 * A database that went away (restart, failover) answers 503 with Retry-After instead (docs/operations.md
 * "When the database goes away").
 */
export function errorHandler(ctx: AppContext): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (isDatabaseUnavailable(err)) {
      ctx.log.warn(
        { requestId: res.locals.requestId, path: req.path },
        "request failed: database unavailable",
      );
      if (res.headersSent) return;
      res.setHeader("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS));
      if (req.path === new URL(ctx.config.resourceUrl).pathname) {
        res.status(503).json({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32603, message: "The service is briefly unavailable; retry the same request." },
        });
      } else res.status(503).type("text/plain").send("Briefly unavailable; please retry.");
      return;
    }
    const status =
      typeof err?.status === "number" && err.status >= 400 && err.status < 600 ? err.status : 500;
    if (status >= 500)
      logError(ctx.log, err, { requestId: res.locals.requestId, path: req.path }, "unhandled error");
    if (res.headersSent) return;
    res
      .status(status)
      .type("text/plain")
      .send(status >= 500 ? "Internal error" : "Bad request");
  };
}
