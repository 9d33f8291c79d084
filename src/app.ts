/**
 * The Express application: one router per area, mounted in a fixed order. Each area owns its own
 * security headers, body parsing and rate limits (the MCP endpoint needs JSON with a 256 KiB limit, the
 * token endpoint form data, the browser pages CSRF); this file only assembles them.
 */
import express, { type ErrorRequestHandler, type Express } from "express";
import type { AppContext } from "./context.ts";
import { developerRoutes } from "./web/developers.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { operationRoutes } from "./web/approval-routes.ts";
import { browserRoutes } from "./web/routes.ts";
import { mediaRoutes } from "./web/media.ts";
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
    // Never headers or bodies (service spec 7 rule 7).
    const started = performance.now();
    res.on("finish", () => {
      ctx.log.info(
        {
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
  app.use(mediaPublicRoutes(ctx));
  app.use(mediaRoutes(ctx));
  app.use(socialSettingsRoutes(ctx));
  app.use(sandboxRoutes(ctx));
  app.use((_req, res) => {
    res.status(404).type("text/plain").send("Not found");
  });
  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const status =
      typeof err?.status === "number" && err.status >= 400 && err.status < 600 ? err.status : 500;
    if (status >= 500)
      ctx.log.error({ err: { name: err?.name, stack: err?.stack }, path: req.path }, "unhandled error");
    if (res.headersSent) return;
    res
      .status(status)
      .type("text/plain")
      .send(status >= 500 ? "Internal error" : "Bad request");
  };
  app.use(onError);
  return app;
}
