/**
 * Origin guard of the MCP endpoint (service spec 5.12: absent -> allowed, not allow-listed -> 403) and CORS
 * for allow-listed origins only. The Host check and the OAuth challenges live in src/oauth/ (host.ts,
 * challenge.ts), shared with the metadata routes.
 */
import cors from "cors";
import type { RequestHandler } from "express";
import type { AppContext } from "../context.ts";

/**
 * Origin validation + CORS: no Origin passes; an allow-listed Origin gets CORS headers (never a wildcard, no
 * credentials: the bearer token is not a cookie) exposing `WWW-Authenticate` and `Mcp-Protocol-Version`;
 * any other Origin is refused with 403.
 */
export function originGuard(ctx: AppContext): RequestHandler {
  const allowed = new Set(ctx.config.corsAllowedOrigins);
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
    ],
    exposedHeaders: ["WWW-Authenticate", "Mcp-Protocol-Version"],
    credentials: false,
    maxAge: 600,
  });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    if (!allowed.has(origin)) {
      res.status(403).json({ error: "forbidden", error_description: "Origin not allowed" });
      return;
    }
    corsHandler(req, res, next);
  };
}
