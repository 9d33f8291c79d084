/**
 * The Express application: one router per area, mounted in a fixed order. Each area owns its own
 * security headers, body parsing and rate limits (the MCP endpoint needs JSON with a 256 KiB limit, the
 * token endpoint form data, the browser pages CSRF); this file only assembles them.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from "express";
import type { AppContext } from "./context.ts";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from "./db/unavailable.ts";
import { logError } from "./log.ts";
import { answerHealth } from "./observability/listeners.ts";
import { httpMethod, metricsEnabled, observeHttp } from "./observability/metrics.ts";
import { routeActiveSpan, tracer } from "./observability/tracing.ts";
import { developerRoutes } from "./web/developers.ts";
import { type McpEndpoint, mcpEndpoint } from "./mcp/routes.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { operationRoutes } from "./web/approval-routes.ts";
import { browserRoutes } from "./web/routes.ts";
import { mediaRoutes } from "./web/media.ts";
import { previewRoutes } from "./web/previews.ts";
import { mediaPublicRoutes } from "./web/media-public.ts";
import { sandboxRoutes } from "./web/sandbox.ts";
import { socialSettingsRoutes } from "./web/social-settings.ts";

/** Builds the app for `ctx` and the MCP endpoint it mounts. Does not listen. */
export function createApp(ctx: AppContext): { app: Express; mcp: McpEndpoint } {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", ctx.config.trustProxy);
  app.set("etag", false);
  app.use((req, res, next) => {
    logAccess(ctx, req, res);
    next();
  });
  // Liveness and readiness (src/observability/health.ts), before any area's middleware.
  for (const path of ["/healthz", "/readyz"])
    app.get(path, (req, res, next) => {
      if (!answerHealth(ctx, req, res)) next();
    });
  const mcp = mcpEndpoint(ctx);
  app.use(mcp.router);
  const areas = [
    oauthRoutes,
    developerRoutes,
    browserRoutes,
    operationRoutes,
    previewRoutes,
    mediaPublicRoutes,
    mediaRoutes,
    socialSettingsRoutes,
    sandboxRoutes,
  ];
  for (const routes of areas) app.use(routes(ctx));
  app.use((_req, res) => {
    res.status(404).type("text/plain").send("Not found");
  });
  app.use(errorHandler(ctx));
  return { app, mcp };
}

/** The server's request listener for `ctx`: the app, with the MCP endpoint's fast lane in front. */
export function createRequestListener(ctx: AppContext): http.RequestListener {
  return createRequestHandling(ctx).listener;
}

/**
 * The request listener of `createRequestListener` and the `http.createServer` options that go with it: request
 * and response classes whose prototypes are the app's own (`app.request`, `app.response`, which Express would
 * otherwise give every request with `Object.setPrototypeOf`, a change of shape V8 pays for on every request; see
 * bench/README.md "Where the time goes"). A server created without them still works: the fast lane then sets
 * the prototypes as Express does.
 */
export function createRequestHandling(ctx: AppContext): {
  listener: http.RequestListener;
  serverOptions: http.ServerOptions;
} {
  const { app, mcp } = createApp(ctx);
  class AppRequest extends http.IncomingMessage {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  class AppResponse extends http.ServerResponse {}
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  return {
    listener: withFastLane(ctx, app, mcp, AppRequest.prototype, AppResponse.prototype),
    serverOptions: {
      IncomingMessage: AppRequest,
      ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
    },
  };
}

/**
 * Access log of one request: method, path without the query string (a token may hide there), status,
 * duration (ms), logged when the response finishes. Never headers or bodies (service spec 7 rule 7). The
 * request gets an id for its log lines (`res.locals.requestId`). One listener function for every request
 * (its state is on `res.locals`), so the hot path allocates no closure for it.
 */
function logAccess(ctx: AppContext, req: Request, res: Response): void {
  res.locals.requestId = randomUUID();
  res.locals.started = performance.now();
  res.locals.log = ctx.log;
  res.once("finish", logFinished);
}

function logFinished(this: Response): void {
  const { log, requestId, started } = this.locals as {
    log: AppContext["log"];
    requestId: string;
    started: number;
  };
  if (metricsEnabled())
    observeHttp(
      httpMethod(this.req.method),
      routeOf(this),
      this.statusCode,
      (performance.now() - started) / 1000,
    );
  if (!log.isLevelEnabled("info")) return;
  log.info(
    {
      requestId,
      method: this.req.method,
      path: this.req.path,
      status: this.statusCode,
      ms: Math.round(performance.now() - started),
    },
    "request",
  );
}

/**
 * The route template of an answered request for the metrics, never the raw path (a path holds ids): the
 * matched route's pattern under its router's mount path (`/media/:id/file`), the endpoint's path for the
 * fast lane (`res.locals.route`), `/healthz` or `/readyz`, else `unmatched` (404) or `other` (answered by
 * middleware: CORS preflights, static files, guards).
 */
function routeOf(res: Response): string {
  const req = res.req;
  const route = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === "string") return `${req.baseUrl}${route}`;
  if (typeof res.locals.route === "string") return res.locals.route;
  return res.statusCode === 404 ? "unmatched" : "other";
}

/**
 * The MCP endpoint's fast lane (bench/README.md "Where the time goes"): a POST on exactly the endpoint's
 * path without an `Origin` header (what every native MCP client sends) is served without Express's
 * routing, which walks every router and middleware layer mounted before a request reaches the endpoint.
 * It gets what Express itself would give it first (`app.handle`: the request and response prototypes of
 * `app`, so `req.ip` follows `TRUST_PROXY`, and `res.locals`), the access log line, the endpoint's own
 * checks and answers (`McpEndpoint.postWithoutOrigin`) and the app's error handler. Every other request,
 * including any other spelling of the path (Express matches it case-insensitively and with a trailing
 * slash) and browser requests with an Origin (CORS), goes through `app`.
 */
export function withFastLane(
  ctx: AppContext,
  app: Express,
  mcp: McpEndpoint,
  requestPrototype?: object,
  responsePrototype?: object,
): http.RequestListener {
  const onError = errorHandler(ctx);
  return (req, res) => {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    if (
      req.method !== "POST" ||
      req.headers.origin !== undefined ||
      (query === -1 ? url : url.slice(0, query)) !== mcp.path
    ) {
      app(req, res);
      return;
    }
    const request = req as Request;
    const response = res as Response;
    request.res = response;
    response.req = request;
    // Already the app's when the server was created with `createRequestHandling`'s classes.
    if (Object.getPrototypeOf(request) !== requestPrototype) Object.setPrototypeOf(request, app.request);
    if (Object.getPrototypeOf(response) !== responsePrototype) Object.setPrototypeOf(response, app.response);
    response.locals = Object.create(null);
    if (metricsEnabled()) response.locals.route = mcp.path;
    if (tracer) routeActiveSpan("POST", mcp.path);
    logAccess(ctx, request, response);
    mcp
      .postWithoutOrigin(request, response)
      .catch((err: unknown) => onError(err, request, response, () => {}));
  };
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
