/**
 * Admission to the MCP endpoint in one database round trip (service spec 5.8 and 8; bench/README.md
 * "Where the time goes"): the per-IP count (src/runtime/rate-limit.ts), the bearer token's record
 * (src/oauth/bearer.ts `tokenLookupSql`: revocation, grant, account status, membership, read on every
 * request, never cached) and, for a tools/call whose budget is consumed right after in-memory checks
 * (`prepayableBudget`), that per-user budget: in ONE prepared statement on the asynchronously committing
 * pool, shared by the requests admitted at the same time (group-commit style, src/db/batcher.ts: a request
 * waits only while an earlier batch's statement runs, then goes with every request that arrived meanwhile). The token's signature and claims are checked in memory first (`readBearer`); a request without a
 * well-formed, correctly signed token only counts its IP. The answer keeps the endpoint's fixed order:
 * per-IP limit (429), then Content-Type (415), then the token (401), whatever was read.
 *
 * A budget unit consumed here is counted only when the IP is within its limit; the pipeline uses it at its
 * budget step (`PrepaidBudget`). A call that stops before that step (refused token, protocol error, unknown
 * tool, missing scope, invalid arguments) gets it back before it is answered (`PrepaidBudget.release`), so
 * every budget counts exactly the calls that reached their budget step, as when the pipeline consumes it;
 * only while such a call is in flight does its unit count, which can refuse a concurrent call at the very
 * edge of the limit.
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
  tokenLookupSql,
} from "../oauth/bearer.ts";
import type { PrepaidBudget } from "../runtime/pipeline.ts";
import {
  counterAddSql,
  type Limiter,
  type LimitVerdict,
  limitVerdict,
  refundPoint,
} from "../runtime/rate-limit.ts";
import type { AuthContext, Budget } from "../tool-contract.ts";
import { type IpLimiter, type Settled, settle } from "./guards.ts";

/**
 * The admission of a batch of requests. $1: a JSON array of `AdmissionItem`s with `i`, their position;
 * $2: now (epoch ms). Each counter key is upserted once with the number of the batch's requests on it
 * (`counterAddSql`), and each request gets the points it would have seen had the batch's requests counted
 * one after the other in order `i` (the key's total before the batch plus its rank among them), so the
 * counts are exactly those of single consumes. A request's budget is counted only when its IP count is
 * within its IP limit. One row per request, ordered by `i`: the counters and the token's record.
 */
const ADMISSION_BATCH = statement(
  "mcp-admission-batch",
  `with req as (
     select * from jsonb_to_recordset($1::jsonb) as x(i integer, ip_key text, ip_window_ms bigint,
            ip_limit integer, jti uuid, budget_key text, budget_window_ms bigint)
   ),
   ip_n as (select ip_key as key, count(*)::integer as n, min(ip_window_ms) as window_ms from req group by ip_key),
   ip as (${counterAddSql("ip_n", "$2")}),
   ip_req as (
     select req.*, ip.expire as ip_expire,
            (ip.points - ip_n.n + row_number() over (partition by req.ip_key order by req.i))::integer as ip_points
       from req join ip on ip.key = req.ip_key join ip_n on ip_n.key = req.ip_key
   ),
   budget_req as (select * from ip_req where budget_key is not null and ip_points <= ip_limit),
   budget_n as (
     select budget_key as key, count(*)::integer as n, min(budget_window_ms) as window_ms
       from budget_req group by budget_key
   ),
   budget as (${counterAddSql("budget_n", "$2")}),
   budget_points as (
     select budget_req.i, budget.expire as budget_expire,
            (budget.points - budget_n.n
              + row_number() over (partition by budget_req.budget_key order by budget_req.i))::integer
              as budget_points
       from budget_req join budget on budget.key = budget_req.budget_key
       join budget_n on budget_n.key = budget_req.budget_key
   )
   select ip_req.i, ip_req.ip_points, ip_req.ip_expire, bp.budget_points, bp.budget_expire, tok.*
     from ip_req left join budget_points bp on bp.i = ip_req.i
     left join lateral (${tokenLookupSql("ip_req.jti")}) tok on true
    order by ip_req.i`,
);

/** One request of an admission batch (the JSON the statement reads). */
interface AdmissionItem {
  /** The IP's counter row key, window (ms) and limit (points). */
  ip_key: string;
  ip_window_ms: number;
  ip_limit: number;
  /** The `jti` of the token, verified in memory. */
  jti: string;
  /** The budget's counter row key and window (ms), or null when the request consumes none. */
  budget_key: string | null;
  budget_window_ms: number | null;
}

/** Most requests in one admission statement. */
const MAX_BATCH = 100;

/** The admission row: the counters and the token's record (all its columns null when there is none). */
type AdmissionRow = {
  i: number;
  ip_points: number;
  ip_expire: number;
  budget_points: number | null;
  budget_expire: number | null;
} & { [K in keyof TokenRow]: TokenRow[K] | null };

const batchers = new WeakMap<Knex, Batcher<AdmissionItem, AdmissionRow>>();

/** The admission batcher of `ctx`'s asynchronously committing pool (src/db/batcher.ts). */
function admissionBatcher(ctx: AppContext): Batcher<AdmissionItem, AdmissionRow> {
  const db = ctx.asyncCommitDb;
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = createBatcher(async (items) => {
      const rows = await runPrepared<AdmissionRow>(db, ADMISSION_BATCH, [
        JSON.stringify(items.map((item, i) => ({ ...item, i }))),
        Date.now(),
      ]);
      if (rows.length !== items.length || rows.some((r, i) => r.i !== i))
        throw new Error(`admission statement returned ${rows.length} rows for ${items.length} requests`);
      return rows;
    }, MAX_BATCH);
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
  const ip = req.ip ?? "unknown";
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
      ip_key: spec.rowKey(ip),
      ip_window_ms: spec.windowMs,
      ip_limit: spec.points,
      jti: claims.value.jti,
      budget_key: budgetKey ?? null,
      budget_window_ms: budget?.limiter.spec.windowMs ?? null,
    });
    limit = limitVerdict({ points: r.ip_points, expire: r.ip_expire }, spec.points);
    ipLimit.record(ip, limit);
    if (budget && budgetKey && typeof r.budget_points === "number" && typeof r.budget_expire === "number")
      prepaid = prepaidUnit(
        ctx,
        budget.budget,
        claims.value.sub,
        budgetKey,
        { points: r.budget_points, expire: r.budget_expire },
        budget.limiter.spec.points,
      );
    row = r.grant_id === null ? undefined : (r as TokenRow);
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
