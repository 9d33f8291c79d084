/**
 * Routes of OAuth metadata, registration, authorize, token and revoke (service spec 4.4).
 * All of them answer 404 when MCP is disabled or the Host is not this service's (DNS-rebinding defence).
 * Limits (service spec 8, per client IP, Postgres-backed): 60/min on /mcp/oauth/*, 10/min on registration,
 * 30/min on consent decisions. Registration, token, revocation, metadata and JWKS send CORS headers for
 * the operator's allowlist only, without credentials.
 */
import { mcpEnabledNow } from "../domain/service/mcp-switch.ts";
import cors from "cors";
import express, { type ErrorRequestHandler, type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { rateLimit } from "../runtime/rate-limit.ts";
import { authorizeRoutes } from "./authorize.ts";
import { OAuthError } from "./errors.ts";
import { hostMatches, oauthHosts } from "./host.ts";
import { signingKeys } from "./keys.ts";
import { authorizationServerMetadata, metadataPaths, protectedResourceMetadata } from "./metadata.ts";
import { registerEndpoint } from "./register.ts";
import { revokeEndpoint } from "./revoke.ts";
import { tokenEndpoint } from "./token.ts";

const PREFIXES = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-authorization-server",
  "/mcp/oauth",
];

/** The OAuth router. */
export function oauthRoutes(ctx: AppContext): Router {
  const router = Router();
  const hosts = oauthHosts(ctx);
  router.use(PREFIXES, (req, res, next) => {
    if (!mcpEnabledNow(ctx) || !hostMatches(ctx, req, hosts)) {
      res.status(404).type("text/plain").send("Not found");
      return;
    }
    next();
  });
  const allowed = new Set(ctx.config.corsAllowedOrigins);
  const corsPublic = cors({
    origin: (origin, cb) => cb(null, origin !== undefined && allowed.has(origin)),
    methods: ["GET", "POST"],
    allowedHeaders: ["Content-Type", "MCP-Protocol-Version"],
    credentials: false,
    maxAge: 600,
  });
  const json = (body: () => unknown) => (_req: Request, res: Response) => {
    res.setHeader("Cache-Control", "public, max-age=300");
    res.json(body());
  };
  const paths = metadataPaths(ctx);
  router.options([...paths.resource, ...paths.server, "/mcp/oauth/:endpoint"], corsPublic);
  router.get(
    paths.resource,
    corsPublic,
    json(() => protectedResourceMetadata(ctx)),
  );
  router.get(
    paths.server,
    corsPublic,
    json(() => authorizationServerMetadata(ctx)),
  );

  // The OAuth limit (service spec 8: 60 per minute) covers the API routes; the consent page and its form
  // (/mcp/oauth/authorize) are browser consent, under the consent limit of 30 (src/oauth/authorize.ts).
  const oauthLimit = rateLimit(ctx, "oauth", ctx.config.limits.oauth, undefined, { json: true });
  router.use("/mcp/oauth", (req, res, next) =>
    req.path === "/authorize" ? next() : oauthLimit(req, res, next),
  );
  router.get("/mcp/oauth/jwks.json", corsPublic, async (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=300");
    res.json((await signingKeys(ctx.keys)).jwks);
  });
  const form = express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 20 });
  // Express 5 passes a rejected promise of a handler to the error handler: no wrapper needed.
  const run =
    (fn: (ctx: AppContext, req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) =>
      fn(ctx, req, res);
  router.post(
    "/mcp/oauth/register",
    corsPublic,
    rateLimit(ctx, "register", ctx.config.limits.register, undefined, { json: true }),
    // Per address (an IPv6 /64) and hour, below the cap of every address together (checked by config), so
    // that one address cannot use the cap up; the cap itself counts only valid registrations (register.ts).
    rateLimit(ctx, "register:hour", ctx.config.limits.registerPerIpHour, undefined, {
      json: true,
      windowSeconds: 3600,
      message: `At most ${ctx.config.limits.registerPerIpHour} client registrations per hour are accepted from one address`,
    }),
    express.json({ limit: "64kb" }),
    run(registerEndpoint),
  );
  router.post("/mcp/oauth/token", corsPublic, form, run(tokenEndpoint));
  router.post("/mcp/oauth/revoke", corsPublic, form, run(revokeEndpoint));
  router.use(authorizeRoutes(ctx));

  const bodyErrors: ErrorRequestHandler = (err, req, res, next) => {
    if (!req.path.startsWith("/mcp/oauth/") || req.path === "/mcp/oauth/authorize") return next(err);
    const status = typeof err?.status === "number" ? err.status : 500;
    if (status >= 500) return next(err);
    const code = req.path === "/mcp/oauth/register" ? "invalid_client_metadata" : "invalid_request";
    new OAuthError(
      code,
      status === 413 ? "the body is too large" : "the body could not be parsed",
    ).toResponse(res);
  };
  router.use(bodyErrors);
  return router;
}
