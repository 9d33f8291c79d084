/**
 * The middleware in front of the signed-in browser pages: the page headers (./security.ts), a per-client rate
 * limit on the browser budget (`config.limits.browser` per window, src/runtime/rate-limit.ts) and the session
 * (./session.ts: GET without one redirects to /login, other methods get 401).
 */
import type { RequestHandler } from "express";
import type { AppContext } from "../context.ts";
import { rateLimit } from "../runtime/rate-limit.ts";
import { pageHeaders } from "./security.ts";
import { requireSession } from "./session.ts";

/** Page headers, the rate limit named `limitName`, then the session; spread into a route's handlers. */
export function signedInPage(ctx: AppContext, limitName: string): RequestHandler[] {
  return [pageHeaders(ctx), rateLimit(ctx, limitName, ctx.config.limits.browser), requireSession(ctx)];
}
