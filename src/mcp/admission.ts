/**
 * Admission to the MCP endpoint in one database round trip (service spec 5.8 and 8; bench/README.md
 * "Where the time goes"): the per-IP count (src/runtime/rate-limit.ts), the bearer token's record
 * (src/oauth/bearer.ts `tokenLookupSql`: revocation, grant, account status, membership, read on every
 * request, never cached) and, for a tools/call whose budget is consumed right after in-memory checks
 * (`prepayableBudget`), that per-user budget: in ONE prepared statement on the asynchronously committing
 * pool. The token's signature and claims are checked in memory first (`readBearer`); a request without a
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
  counterUpsertSql,
  type Limiter,
  type LimitVerdict,
  limitVerdict,
  refundPoint,
} from "../runtime/rate-limit.ts";
import type { AuthContext, Budget } from "../tool-contract.ts";
import { type IpLimiter, type Settled, settle } from "./guards.ts";

/** $1 IP row key, $2 now (epoch ms), $3 IP window (ms), $4 the token's jti. One row. */
const ADMISSION = statement(
  "mcp-admission",
  `with ip as (${counterUpsertSql("$1", "$2", "$3")})
   select ip.points as ip_points, ip.expire as ip_expire, tok.*
     from ip left join (${tokenLookupSql("$4::uuid")}) tok on true`,
);

/**
 * As ADMISSION, plus $5 the budget's row key, $6 its window (ms), $7 the IP limit: the budget is counted
 * only when the IP count is within $7.
 */
const ADMISSION_WITH_BUDGET = statement(
  "mcp-admission-budget",
  `with ip as (${counterUpsertSql("$1", "$2", "$3")}),
        budget as (${counterUpsertSql("$5", "$2", "$6", "ip where ip.points <= $7::integer")})
   select ip.points as ip_points, ip.expire as ip_expire,
          budget.points as budget_points, budget.expire as budget_expire, tok.*
     from ip left join budget on true left join (${tokenLookupSql("$4::uuid")}) tok on true`,
);

/** The admission row: the counters and the token's record (all its columns null when there is none). */
type AdmissionRow = {
  ip_points: number;
  ip_expire: number;
  budget_points?: number | null;
  budget_expire?: number | null;
} & { [K in keyof TokenRow]: TokenRow[K] | null };

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
    const now = Date.now();
    const values: unknown[] = [spec.rowKey(ip), now, spec.windowMs, claims.value.jti];
    const budgetKey = budget?.limiter.spec.rowKey(claims.value.sub);
    if (budget) values.push(budgetKey, budget.limiter.spec.windowMs, spec.points);
    const [r] = await runPrepared<AdmissionRow>(
      ctx.asyncCommitDb,
      budget ? ADMISSION_WITH_BUDGET : ADMISSION,
      values,
    );
    if (!r) throw new Error("admission statement returned no row");
    limit = limitVerdict({ points: r.ip_points, expire: r.ip_expire }, spec.points, now);
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
