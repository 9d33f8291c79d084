/**
 * Fixed-window rate limits shared across instances (service spec 8): one counter row per key in the
 * `rate_limits` table (key, points, expire in epoch milliseconds), counted by one prepared upsert on
 * `ctx.asyncCommitDb` (a small pool that commits asynchronously, see src/context.ts). One limiter per
 * (name, points); keys are e.g. a user id or client IP, stored as `{name}:{key}`.
 *
 * The counter is the one rate-limiter-flexible's Postgres store kept in this table (same layout, keys,
 * window and arithmetic), written out here so that the /mcp endpoint can count the client's IP in the same
 * statement as its token lookup (src/mcp/admission.ts, bench/README.md "Where the time goes"): the first
 * consume of a window creates the row (points 1, expire = now + window), every later one adds a point,
 * refused ones too; the first consume after `expire` starts a new window. A consume is allowed while the
 * row's points, after adding its own, are at most the limit.
 */
import type { Request, RequestHandler } from "express";
import ipaddr from "ipaddr.js";
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";
import { runPrepared, statement } from "../db/prepared.ts";

/** Bound of the memo of `ipKey` (entries; cleared when full). */
const MAX_IP_KEYS = 10_000;
const ipKeys = new Map<string, string>();

/**
 * The key a per-IP limit counts a client address by (service spec 8; docs/security.md "Trusted proxies"): an
 * IPv4 address as it is (also when written IPv4-mapped, `::ffff:192.0.2.1`), an IPv6 address by its /64
 * prefix (`2001:db8:1:2::/64`): one IPv6 subscriber usually holds a whole /64 and could otherwise rotate
 * through 2^64 addresses, each with its own count. Anything unparsable is counted as itself; a missing
 * address as `unknown`.
 */
export function ipKey(ip: string | undefined): string {
  if (!ip) return "unknown";
  if (!ip.includes(":")) return ip;
  const known = ipKeys.get(ip);
  if (known !== undefined) return known;
  let key = ip;
  try {
    const addr = ipaddr.process(ip);
    if (addr.kind() === "ipv4") key = addr.toString();
    else {
      const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
      key = `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
    }
  } catch {
    // not an address: counted as the text it is
  }
  if (ipKeys.size >= MAX_IP_KEYS) ipKeys.clear();
  ipKeys.set(ip, key);
  return key;
}

/** The outcome of one consume: allowed, or refused with whole seconds until the window resets. */
export type LimitVerdict = { ok: true } | { ok: false; retryAfter: number };

export interface Limiter {
  /** The counter's row key, points and window (to count inside another statement, src/mcp/admission.ts). */
  readonly spec: LimitSpec;
  /**
   * Consumes one point for `key`.
   * @returns `{ ok: true }`, or `{ ok: false, retryAfter }` with whole seconds until the window resets.
   * @throws when the store fails (callers treat it as an internal error, never as "allowed").
   */
  consume(key: string): Promise<LimitVerdict>;
}

/** A counter row after a consume: the points counted in the window and its end (epoch milliseconds). */
export interface CounterRow {
  points: number;
  expire: number;
}

/**
 * The SQL that adds points to counter rows, for use as a CTE of a larger statement: `rows` names a CTE or
 * subquery (from-list SQL) of `key text, n integer, window_ms bigint` rows, each key at most once: `n`
 * points for `key`, whose window is `window_ms` long; `now` is a placeholder of the caller's statement
 * (epoch ms, e.g. "$2"). A row whose window has ended starts a new one with `n` points. Returns
 * `key, points, expire` per key, after the addition.
 */
export function counterAddSql(rows: string, now: string): string {
  return `insert into rate_limits as r (key, points, expire)
      select key, n, ${now}::bigint + window_ms from ${rows}
      on conflict (key) do update set
        points = case when r.expire <= ${now}::bigint then excluded.points else r.points + excluded.points end,
        expire = case when r.expire <= ${now}::bigint then excluded.expire else r.expire end
      returning key, points, expire`;
}

/**
 * The SQL of one consume (one point for one key, `counterAddSql`): `key`, `now` (epoch ms) and `windowMs`
 * are placeholders of the caller's statement (e.g. "$1"). Returns `key, points, expire`.
 */
export function counterUpsertSql(key: string, now: string, windowMs: string): string {
  return counterAddSql(`(select ${key}::text as key, 1 as n, ${windowMs}::bigint as window_ms) one`, now);
}

/** $1 row keys, $2 points to give back for each, $3 each key's window `expire` (epoch ms). */
const REFUND_MANY = statement(
  "rate-limit-refund-many",
  `update rate_limits r set points = greatest(r.points - x.n, 0)
     from unnest($1::text[], $2::integer[], $3::bigint[]) as x(key, n, expire)
    where r.key = x.key and r.expire = x.expire`,
);

/** Points to give back to one counter row, within the window ending at `expire` (epoch ms). */
export interface Refund {
  key: string;
  points: number;
  expire: number;
}

/**
 * `refundPoint` for several rows in one statement on `db` (the asynchronously committing pool, or a
 * caller's): each row loses its `points`, never below zero, only while the window ending at its `expire`
 * lasts. @throws the database's error.
 */
export async function refundPoints(db: Knex, refunds: readonly Refund[]): Promise<void> {
  if (refunds.length === 0) return;
  await runPrepared(db, REFUND_MANY, [
    refunds.map((r) => r.key),
    refunds.map((r) => r.points),
    refunds.map((r) => r.expire),
  ]);
}

/**
 * Gives back the point a consume counted for `rowKey` in the window ending at `expire` (epoch ms), for a
 * consume made ahead of its use (src/mcp/admission.ts) by a call that stopped before using it
 * (`refundPoints` of one point). Nothing happens once that window has ended (the next window starts from
 * zero anyway). @throws the database's error.
 */
export function refundPoint(ctx: AppContext, rowKey: string, expire: number): Promise<void> {
  return refundPoints(ctx.asyncCommitDb, [{ key: rowKey, points: 1, expire }]);
}

const CONSUME = statement("rate-limit-consume", counterUpsertSql("$1", "$2", "$3"));

/** Judges a counter row against `points` per window (`now` in epoch ms, default the system clock). */
export function limitVerdict(row: CounterRow, points: number, now = Date.now()): LimitVerdict {
  if (row.points <= points) return { ok: true };
  return { ok: false, retryAfter: Math.max(1, Math.ceil(Math.max(row.expire - now, 0) / 1000)) };
}

/** The limits of one named limiter: the stored key of a client key, and the window. */
export interface LimitSpec {
  /** `{name}:{key}`, the row key. */
  rowKey(key: string): string;
  points: number;
  windowMs: number;
}

/** Describes the limiter `name` of `points` per `durationSeconds`. */
export function limitSpec(name: string, points: number, durationSeconds: number): LimitSpec {
  return { rowKey: (key) => `${name}:${key}`, points, windowMs: durationSeconds * 1000 };
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
  const spec = limitSpec(name, points, durationSeconds);
  return {
    spec,
    async consume(key) {
      const now = Date.now();
      const [row] = await runPrepared<CounterRow>(ctx.asyncCommitDb, CONSUME, [
        spec.rowKey(key),
        now,
        spec.windowMs,
      ]);
      if (!row) throw new Error("rate limit counter returned no row");
      return limitVerdict(row, spec.points);
    },
  };
}

/** $1 row key, $2 now (epoch ms), $3 window (ms), $4 limit: adds a point only while the row is below it. */
const CONSUME_WITHIN = statement(
  "rate-limit-consume-within",
  `insert into rate_limits as r (key, points, expire) values ($1, 1, $2::bigint + $3::bigint)
   on conflict (key) do update set
     points = case when r.expire <= $2::bigint then 1 else r.points + 1 end,
     expire = case when r.expire <= $2::bigint then excluded.expire else r.expire end
   where r.expire <= $2::bigint or r.points < $4::integer
   returning points, expire`,
);

/**
 * Consumes one point of `spec` for `key` only when it is allowed: unlike `Limiter.consume`, a refused
 * consume adds nothing, so the counter holds exactly the allowed ones (a cap shared by every client, such
 * as the hourly client registrations, that refused requests must not use up).
 * @returns `{ ok: true }`, or `{ ok: false, retryAfter }` with whole seconds until the window resets.
 * @throws the rate-limit store's error.
 */
export async function consumeWithin(ctx: AppContext, spec: LimitSpec, key: string): Promise<LimitVerdict> {
  const now = Date.now();
  const rowKey = spec.rowKey(key);
  const [row] = await runPrepared<CounterRow>(ctx.asyncCommitDb, CONSUME_WITHIN, [
    rowKey,
    now,
    spec.windowMs,
    spec.points,
  ]);
  if (row) return { ok: true };
  const full = await ctx.asyncCommitDb("rate_limits").where({ key: rowKey }).first("expire");
  return limitVerdict({ points: spec.points + 1, expire: Number(full?.expire ?? now) }, spec.points, now);
}

/**
 * Express middleware: 429 with `Retry-After` (seconds) and `Cache-Control: no-store` when `key(req)` (default:
 * the client's `ipKey`) is over `points` per `options.windowSeconds` (default the configured window);
 * `options.json` answers with a JSON error body (API routes such as OAuth), `options.message` names the
 * limit in that body.
 */
export function rateLimit(
  ctx: AppContext,
  name: string,
  points: number,
  key: (req: Request) => string = (req) => ipKey(req.ip),
  options: { json?: boolean; windowSeconds?: number; message?: string } = {},
): RequestHandler {
  const limiter = createLimiter(ctx, name, points, options.windowSeconds);
  return (req, res, next) => {
    limiter.consume(key(req)).then(
      (r) => {
        if (r.ok) return next();
        res.setHeader("Retry-After", String(r.retryAfter));
        res.setHeader("Cache-Control", "no-store");
        if (options.json) {
          res.status(429).json({
            error: "rate_limited",
            error_description: `${options.message ?? "Too many requests"}; retry after ${r.retryAfter} seconds`,
          });
        } else res.status(429).type("text/plain").send("Too many requests");
      },
      (err) => next(err),
    );
  };
}
