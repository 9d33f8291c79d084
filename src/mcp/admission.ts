/**
 * Admission to the MCP endpoint in one database round trip (service spec 5.8 and 8; bench/README.md
 * "Where the time goes"): the per-IP count (src/runtime/rate-limit.ts) and the bearer token's record
 * (src/oauth/bearer.ts `tokenLookupSql`: revocation, grant, account status, membership, read on every
 * request) in ONE prepared statement on the counters pool. The token's signature and claims are checked in
 * memory first (`readBearer`); a request without a well-formed, correctly signed token only counts its IP.
 * The answer keeps the endpoint's fixed order: per-IP limit (429), then Content-Type (415), then the token
 * (401), whatever was read.
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
import { counterUpsertSql, limitVerdict } from "../runtime/rate-limit.ts";
import type { AuthContext } from "../tool-contract.ts";
import { type IpLimiter, type Settled, settle } from "./guards.ts";

/** $1 IP row key, $2 now (epoch ms), $3 window (ms), $4 the token's jti. One row. */
const ADMISSION = statement(
  "mcp-admission",
  `with ip as (${counterUpsertSql("$1", "$2", "$3")})
   select ip.points as ip_points, ip.expire as ip_expire, tok.*
     from ip left join (${tokenLookupSql("$4::uuid")}) tok on true`,
);

/** The admission row: the IP's counter and the token's record (all its columns null when there is none). */
type AdmissionRow = { ip_points: number; ip_expire: number } & {
  [K in keyof TokenRow]: TokenRow[K] | null;
};

/** What the endpoint answers: 429, 415, 401 (or the error), or the caller's authentication. */
export type Admission =
  | { kind: "ip_limited"; retryAfter: number }
  | { kind: "not_json" }
  | { kind: "refused"; error: unknown }
  | { kind: "admitted"; auth: AuthContext };

/**
 * Counts the request's IP against `ipLimit` and authenticates its bearer token, in one statement when the
 * token verifies in memory. An IP that this process already saw over its limit in the current window
 * gets no token check (the hint of `IpLimiter.isLimited`).
 * @returns the admission; never throws for a refused token (`refused` carries the BearerError).
 * @throws the database's error when the count fails (the endpoint answers it as an internal error).
 */
export async function admit(ctx: AppContext, ipLimit: IpLimiter, req: Request): Promise<Admission> {
  const ip = req.ip ?? "unknown";
  const json = Boolean(req.is("application/json"));
  const claims = json && !ipLimit.isLimited(ip) ? await settle(readBearer(ctx, req)) : undefined;
  let row: TokenRow | undefined;
  let limit: Awaited<ReturnType<IpLimiter["consume"]>>;
  if (claims?.ok) {
    const spec = ipLimit.spec;
    const [r] = await runPrepared<AdmissionRow>(ctx.asyncCommitDb, ADMISSION, [
      spec.rowKey(ip),
      Date.now(),
      spec.windowMs,
      claims.value.jti,
    ]);
    if (!r) throw new Error("admission statement returned no row");
    limit = limitVerdict({ points: r.ip_points, expire: r.ip_expire }, spec.points);
    ipLimit.record(ip, limit);
    row = r.grant_id === null ? undefined : (r as TokenRow);
  } else limit = await ipLimit.consume(ip);
  if (!limit.ok) return { kind: "ip_limited", retryAfter: limit.retryAfter };
  if (!json) return { kind: "not_json" };
  const auth: Settled<AuthContext> = claims
    ? await settleClaims(ctx, claims, row)
    : // The hint said "over the limit" but the window has turned: authenticate on its own.
      await settle(authenticateBearer(ctx, req));
  return auth.ok ? { kind: "admitted", auth: auth.value } : { kind: "refused", error: auth.error };
}

function settleClaims(
  ctx: AppContext,
  claims: Settled<BearerClaims>,
  row: TokenRow | undefined,
): Promise<Settled<AuthContext>> {
  return claims.ok ? settle(acceptToken(ctx, claims.value, row)) : Promise.resolve(claims);
}
