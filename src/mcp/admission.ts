/**
 * Admission to the MCP endpoint in one database round trip (service spec 5.8 and 8; bench/README.md
 * "Where the time goes"): the per-IP count (src/runtime/rate-limit.ts), the bearer token's record
 * (src/oauth/bearer.ts `tokenRecordsSql`: revocation, grant, account status, membership, read on every
 * request, never cached) and, for a tools/call whose budget is consumed right after in-memory checks
 * (`prepayableBudget`), that per-user budget: in ONE prepared statement on the asynchronously committing
 * pool, shared by the requests admitted at the same time (group-commit style, src/db/batcher.ts: the
 * requests of one turn of the event loop, and those arriving while earlier batches run, go together). The
 * token's signature and claims are checked in memory first (`readBearer`); a request without a
 * well-formed, correctly signed token only counts its IP. The answer keeps the endpoint's fixed order:
 * per-IP limit (429), then Content-Type (415), then the token (401), whatever was read.
 *
 * A budget unit consumed here is counted only when the IP is within its limit; the pipeline uses it
 * (`PrepaidBudget`: every call of a known tool that reaches the pipeline spends a unit, also one refused for
 * its scope or arguments). A request that never reaches the pipeline (refused token, protocol error) gets
 * it back before it is answered (`PrepaidBudget.release`), so every budget counts exactly the calls that
 * reached the pipeline, as when the pipeline consumes it; only while such a request is in flight does its
 * unit count, which can refuse a concurrent call at the very edge of the limit.
 */
import type { Request } from "express";
import type { AppContext } from "../context.ts";
import { type Batcher, createBatcher } from "../db/batcher.ts";
import type { Knex } from "../db/knex.ts";
import { runPrepared, statement } from "../db/prepared.ts";
import {
  acceptToken,
  authenticateBearer,
  type BearerClaims,
  readBearer,
  type TokenRow,
  tokenRecordsSql,
} from "../oauth/bearer.ts";
import type { PrepaidBudget } from "../runtime/pipeline.ts";
import {
  type CounterRow,
  counterAddSql,
  ipKey,
  type Limiter,
  type LimitVerdict,
  limitVerdict,
  refundPoint,
  refundPoints,
} from "../runtime/rate-limit.ts";
import type { AuthContext, Budget } from "../tool-contract.ts";
import { type IpLimiter, type Settled, settle } from "./guards.ts";

/**
 * The admission of a batch of requests: $1 the batch's counter keys (distinct, sorted, so that concurrent
 * batches lock shared rows in one order), $2 the points to add to each (its number of requests in the
 * batch), $3 each key's window (ms), $4 now (epoch ms), $5 the batch's distinct token `jti`s. One row per
 * counter (`key`, `points` after the addition, `expire`; the token columns null) and one per token record
 * found (`key` null): a full join on false is a union of the two shapes.
 */
const ADMISSION_BATCH = statement(
  "mcp-admission-batch",
  `with c as (${counterAddSql("unnest($1::text[], $2::integer[], $3::bigint[]) as x(key, n, window_ms)", "$4")})
   select c.key, c.points, c.expire, tok.*
     from c full join (${tokenRecordsSql("$5::uuid[]")}) tok on false`,
);

/** One request of an admission batch. */
interface AdmissionItem {
  /** The IP's counter row key, window (ms) and limit (points). */
  ipKey: string;
  ipWindowMs: number;
  ipLimit: number;
  /** The `jti` of the token, verified in memory. */
  jti: string;
  /** The budget's counter row key and window (ms), or null when the request consumes none. */
  budgetKey: string | null;
  budgetWindowMs: number;
}

/** A request's counters, as single consumes one after the other would have left them, and its token. */
interface AdmissionResult {
  ip: CounterRow;
  /** The budget's counter after this request's unit; null when it consumed none (or its IP is over). */
  budget: CounterRow | null;
  token: TokenRow | undefined;
}

/** Most requests in one admission statement. */
const MAX_BATCH = 100;

type BatchRow = { key: string | null; points: number | null; expire: number | null } & {
  [K in keyof TokenRow]: TokenRow[K] | null;
};

/** A counter of the batch: points before the batch, then counted up request by request. */
interface Tally {
  n: number;
  windowMs: number;
  points: number;
  expire: number;
  /** Units counted for requests whose IP turned out over its limit (given back). */
  refund: number;
}

/**
 * Admits `items` in one statement on `db`. Each key gets the batch's number of its requests at once; each
 * request then gets the points it would have seen had the requests of the batch consumed one after the
 * other in order: the key's points before the batch plus its rank. A budget unit is counted only for a
 * request whose IP is within its limit: the units of the others, added by the statement, are given back
 * in a second statement (only when an IP crosses its limit within the batch), and do not move the
 * following requests' ranks.
 * @throws the database's error (every request of the batch gets it).
 */
async function admitBatch(db: Knex, items: AdmissionItem[]): Promise<AdmissionResult[]> {
  const tallies = new Map<string, Tally>();
  const count = (key: string, windowMs: number) => {
    const t = tallies.get(key);
    if (t) t.n++;
    else tallies.set(key, { n: 1, windowMs, points: 0, expire: 0, refund: 0 });
  };
  for (const item of items) {
    count(item.ipKey, item.ipWindowMs);
    if (item.budgetKey) count(item.budgetKey, item.budgetWindowMs);
  }
  const keys = [...tallies.keys()].sort();
  const jtis = [...new Set(items.map((item) => item.jti))];
  const rows = await runPrepared<BatchRow>(db, ADMISSION_BATCH, [
    keys,
    keys.map((k) => tallies.get(k)?.n),
    keys.map((k) => tallies.get(k)?.windowMs),
    Date.now(),
    jtis,
  ]);
  const tokens = new Map<string, TokenRow>();
  for (const row of rows) {
    if (row.key === null) {
      if (row.jti !== null) tokens.set(row.jti, row as TokenRow);
      continue;
    }
    const t = tallies.get(row.key);
    if (!t || row.points === null || row.expire === null)
      throw new Error("admission statement: bad counter row");
    t.points = row.points - t.n;
    t.expire = row.expire;
  }
  const tally = (key: string): Tally => {
    const t = tallies.get(key);
    if (!t || t.expire === 0) throw new Error("admission statement returned no row for a counter");
    return t;
  };
  const results = items.map((item): AdmissionResult => {
    const ipTally = tally(item.ipKey);
    ipTally.points++;
    const ip = { points: ipTally.points, expire: ipTally.expire };
    let budget: CounterRow | null = null;
    if (item.budgetKey) {
      const b = tally(item.budgetKey);
      if (ip.points <= item.ipLimit) {
        b.points++;
        budget = { points: b.points, expire: b.expire };
      } else b.refund++;
    }
    return { ip, budget, token: tokens.get(item.jti) };
  });
  const refunds = keys
    .map((key) => ({ key, tally: tally(key) }))
    .filter(({ tally: t }) => t.refund > 0)
    .map(({ key, tally: t }) => ({ key, points: t.refund, expire: t.expire }));
  await refundPoints(db, refunds);
  return results;
}

const batchers = new WeakMap<Knex, Batcher<AdmissionItem, AdmissionResult>>();

/** The admission batcher of `ctx`'s asynchronously committing pool (src/db/batcher.ts). */
function admissionBatcher(ctx: AppContext): Batcher<AdmissionItem, AdmissionResult> {
  const db = ctx.asyncCommitDb;
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = createBatcher((items) => admitBatch(db, items), MAX_BATCH);
    batchers.set(db, batcher);
  }
  return batcher;
}

/** What the endpoint answers: 429, 415, 401 (or the error), or the caller's authentication. */
export type Admission = (
  | { kind: "ip_limited"; retryAfter: number }
  | { kind: "not_json" }
  | { kind: "refused"; error: unknown }
  | { kind: "admitted"; auth: AuthContext }
) & {
  /** The call's budget unit when it was consumed at admission (see the module comment). */
  prepaid?: PrepaidBudget | undefined;
};

/**
 * Called once the token verified in memory, before the statement: the budget to consume with it, if any
 * (the endpoint reads the body to know the tool).
 */
export type Prepay = () => Promise<{ budget: Budget; limiter: Limiter } | undefined>;

/**
 * Counts the request's IP against `ipLimit`, authenticates its bearer token and consumes the budget that
 * `prepay` names, in one statement when the token verifies in memory. An IP that this process already saw
 * over its limit in the current window gets no token check (the hint of `IpLimiter.isLimited`).
 * @returns the admission; never throws for a refused token (`refused` carries the BearerError).
 * @throws the database's error when the count fails (the endpoint answers it as an internal error).
 */
export async function admit(
  ctx: AppContext,
  ipLimit: IpLimiter,
  req: Request,
  prepay?: Prepay,
): Promise<Admission> {
  const ip = ipKey(req.ip);
  const json = Boolean(req.is("application/json"));
  const claims = json && !ipLimit.isLimited(ip) ? await settle(readBearer(ctx, req)) : undefined;
  let row: TokenRow | undefined;
  let limit: LimitVerdict;
  let prepaid: PrepaidBudget | undefined;
  if (claims?.ok) {
    const spec = ipLimit.spec;
    const budget = prepay ? await prepay() : undefined;
    const budgetKey = budget?.limiter.spec.rowKey(claims.value.sub);
    const r = await admissionBatcher(ctx).submit({
      ipKey: spec.rowKey(ip),
      ipWindowMs: spec.windowMs,
      ipLimit: spec.points,
      jti: claims.value.jti,
      budgetKey: budgetKey ?? null,
      budgetWindowMs: budget?.limiter.spec.windowMs ?? 0,
    });
    limit = limitVerdict(r.ip, spec.points);
    ipLimit.record(ip, limit);
    if (budget && budgetKey && r.budget)
      prepaid = prepaidUnit(
        ctx,
        budget.budget,
        claims.value.sub,
        budgetKey,
        r.budget,
        budget.limiter.spec.points,
      );
    row = r.token;
  } else limit = await ipLimit.consume(ip);
  if (!limit.ok) return { kind: "ip_limited", retryAfter: limit.retryAfter, prepaid };
  if (!json) return { kind: "not_json", prepaid };
  const auth: Settled<AuthContext> = claims
    ? await settleClaims(ctx, claims, row)
    : // The hint said "over the limit" but the window has turned: authenticate on its own.
      await settle(authenticateBearer(ctx, req));
  return auth.ok
    ? { kind: "admitted", auth: auth.value, prepaid }
    : { kind: "refused", error: auth.error, prepaid };
}

/**
 * The budget unit counted in `row` (the budget's counter after the admission's consume) for `userId`;
 * `release` takes the point back from `rowKey` while the window of `row` lasts (`refundPoint`). A failed
 * give-back is logged; the unit then stays counted until its window ends, as a refused call's would.
 */
function prepaidUnit(
  ctx: AppContext,
  budget: Budget,
  userId: string,
  rowKey: string,
  row: { points: number; expire: number },
  points: number,
): PrepaidBudget {
  let released = false;
  const unit: PrepaidBudget = {
    budget,
    userId,
    verdict: limitVerdict(row, points),
    used: false,
    async release() {
      if (unit.used || released) return;
      released = true;
      try {
        await refundPoint(ctx, rowKey, row.expire);
      } catch (err) {
        ctx.log.warn({ errName: (err as Error)?.name, budget }, "could not give a budget unit back");
      }
    },
  };
  return unit;
}

function settleClaims(
  ctx: AppContext,
  claims: Settled<BearerClaims>,
  row: TokenRow | undefined,
): Promise<Settled<AuthContext>> {
  return claims.ok ? settle(acceptToken(ctx, claims.value, row)) : Promise.resolve(claims);
}
