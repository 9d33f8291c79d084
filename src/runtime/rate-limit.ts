/**
 * Fixed-window rate limits shared across instances (service spec 8): rate-limiter-flexible's Postgres
 * store on the `rate_limits` table, through `ctx.countersDb` (a small pool that commits asynchronously, see
 * src/context.ts). One limiter per (name, points); keys are e.g. a user id or client IP.
 */
import type { Request, RequestHandler } from "express";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import type { AppContext } from "../context.ts";

export interface Limiter {
  /**
   * Consumes one point for `key`.
   * @returns `{ ok: true }`, or `{ ok: false, retryAfter }` with whole seconds until the window resets.
   * @throws when the store fails (callers treat it as an internal error, never as "allowed").
   */
  consume(key: string): Promise<{ ok: true } | { ok: false; retryAfter: number }>;
}

/**
 * Creates a limiter of `points` per `durationSeconds` (default: config RATE_LIMIT_WINDOW_SECONDS, one
 * minute as in service spec 8) named `name` (the key prefix).
 */
export function createLimiter(
  ctx: AppContext,
  name: string,
  points: number,
  durationSeconds = ctx.config.limits.windowSeconds,
): Limiter {
  const limiter = new RateLimiterPostgres({
    storeClient: ctx.countersDb,
    storeType: "knex",
    tableName: "rate_limits",
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: name,
    points,
    duration: durationSeconds,
  });
  return {
    async consume(key) {
      try {
        await limiter.consume(key, 1);
        return { ok: true };
      } catch (res) {
        if (res instanceof RateLimiterRes)
          return { ok: false, retryAfter: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
        throw res;
      }
    },
  };
}

/**
 * Express middleware: 429 with `Retry-After` (seconds) and `Cache-Control: no-store` when `key(req)` (default:
 * client IP) is over the limit; `options.json` answers with a JSON error body (API routes such as OAuth).
 */
export function rateLimit(
  ctx: AppContext,
  name: string,
  points: number,
  key: (req: Request) => string = (req) => req.ip ?? "unknown",
  options: { json?: boolean } = {},
): RequestHandler {
  const limiter = createLimiter(ctx, name, points);
  return (req, res, next) => {
    limiter.consume(key(req)).then(
      (r) => {
        if (r.ok) return next();
        res.setHeader("Retry-After", String(r.retryAfter));
        res.setHeader("Cache-Control", "no-store");
        if (options.json) {
          res.status(429).json({
            error: "rate_limited",
            error_description: `Too many requests; retry after ${r.retryAfter} seconds`,
          });
        } else res.status(429).type("text/plain").send("Too many requests");
      },
      (err) => next(err),
    );
  };
}
