/**
 * The maintenance pass (service spec 3.1, 6.3, 8), scheduled every five minutes through pg-boss (one job
 * per tick across all workers) and callable directly (tests inject `ctx.clock`):
 * 1. approvals older than APPROVAL_TTL_SECONDS (30 min) -> `denied`;
 * 2. operations stranded in `approved`/`queued` for more than STRANDED_AFTER_SECONDS (10 min) since their
 *    last dispatch, and every `dispatch_failed` one -> dispatched again (the claim keeps it exactly-once);
 * 3. `running` past its deadline -> `outcome_unknown` (never replayed);
 * 4. expired rows of the shared rate-limit table deleted;
 * 5. idempotency records older than IDEMPOTENCY_RETENTION_SECONDS (7 days) deleted, except those of an
 *    operation that is not final yet (docs/operations.md);
 * 6. post schedules whose time has come published (`publishDueSchedules`, which claims each schedule, so
 *    a schedule is published once across workers; the per-minute scheduler pass does the same sooner).
 * 7. registered OAuth clients older than OAUTH_UNUSED_CLIENT_TTL_SECONDS (7 days) that never obtained an
 *    access token deleted (abandoned dynamic registrations, RFC 7591 section 5 leaves their lifetime to the
 *    server; docs/oauth.md), with their unfinished grants and codes.
 * 8. carousel runs still `queued` whose operation ended without handing them to the render queue ->
 *    `failed`, credits refunded once (src/domain/carousels/settle.ts);
 * 9. carousel runs handed to the render queue more than 10 minutes ago and still waiting (a lost job) -> their
 *    render job sent again (./render.ts; the render's claim keeps it single);
 * 10. expired browser sessions, consent nonces, authorization codes (a day after expiry), connect states and
 *    abandoned Page picks (with their sealed Page tokens) and idle sign-in throttle rows deleted
 *    (./purge.ts).
 * 11. automation runs whose lease ran out (their worker died) -> `failed`, with the carousel run they own,
 *    refunded only under the existing rules (src/domain/automations/crashed-runs.ts; every worker's lease
 *    reaper does the same sooner).
 * Steps 4 to 11 are independent: one failing is logged, the others still run, and the pass then throws.
 */
import type { AppContext } from "../context.ts";
import { countApprovalDecided, countOperation } from "../observability/metrics.ts";
import { publishDueSchedules } from "../domain/social/schedules.ts";
import { settleStrandedCarouselRuns } from "../domain/carousels/settle.ts";
import { failCrashedAutomationRuns } from "../domain/automations/crashed-runs.ts";
import { dispatchOperation } from "../domain/operations/dispatch.ts";
import { FINAL_STATES } from "../domain/operations/store.ts";
import { redispatchStrandedRenders } from "./render.ts";
import { type PurgeReport, purgeExpired } from "./purge.ts";

/**
 * How long an idempotency record is kept, seconds (7 days). A retry with the same key after that is a new
 * request. Records of operations that are still waiting, queued or running are kept until they finish.
 */
export const IDEMPOTENCY_RETENTION_SECONDS = 7 * 24 * 3600;
/** Idempotency records deleted per statement (the sweep loops up to IDEMPOTENCY_SWEEP_MAX per pass). */
const IDEMPOTENCY_BATCH = 5000;
const IDEMPOTENCY_SWEEP_MAX = 100_000;
/** Due post schedules published per pass. */
const SCHEDULE_BATCH = 100;

export interface MaintenanceReport {
  /** Approvals moved to `denied` because they expired. */
  expired: number;
  /** Operations sent to the queue again. */
  redispatched: number;
  /** Of those, how many are still `dispatch_failed`. */
  redispatchFailed: number;
  /** `running` operations moved to `outcome_unknown`. */
  overdue: number;
  /** Post schedules published. */
  schedulesPublished: number;
  /** Never-started carousel runs of ended operations failed and refunded. */
  carouselRunsRefunded: number;
  /** Carousel render jobs sent again (handed over more than 10 minutes ago and still waiting). */
  rendersRedispatched: number;
  /** Automation runs whose worker died, ended `failed`. */
  automationRunsFailed: number;
  /** Rate-limit rows deleted. */
  rateLimitRows: number;
  /** Idempotency records deleted (older than the retention). */
  idempotencyRecords: number;
  /** Registered OAuth clients deleted because they never completed a grant. */
  unusedClients: number;
  /** Expired short-lived records deleted, by table (./purge.ts). */
  purged: PurgeReport;
}

/** At most this many operations are redispatched per pass (the next pass takes the rest). */
const REDISPATCH_BATCH = 500;

/**
 * Writes `changes` to every operation in `state` whose time column passed (`column op now`, e.g.
 * `["deadline_at", "<", now]`), counts each one's new state (and an expired approval) in the metrics, and
 * returns how many moved.
 */
async function moveTimedOut(
  ctx: AppContext,
  state: string,
  [column, op, now]: [string, "<" | "<=", Date],
  changes: { state: string; decision?: "expired" } & Record<string, unknown>,
): Promise<number> {
  const moved = (await ctx
    .db("operations")
    .where({ state })
    .where(column, op, now)
    .update(changes, ["tool"])) as Array<{ tool: string }>;
  for (const { tool } of moved) {
    countOperation(tool, changes.state);
    if (changes.decision) countApprovalDecided(tool, changes.decision);
  }
  return moved.length;
}

/**
 * Runs one maintenance pass at `ctx.clock.now()`. Safe to run concurrently with itself and with workers.
 * @throws after all steps ran, when one of the independent steps (4 to 9) failed; database errors of
 *   steps 1 to 3 propagate at once.
 */
export async function runMaintenance(ctx: AppContext): Promise<MaintenanceReport> {
  const now = ctx.clock.now();
  const { worker } = ctx.config;

  const expired = await moveTimedOut(ctx, "approval_required", ["approval_expires_at", "<=", now], {
    state: "denied",
    decision: "expired",
    decided_at: now,
    updated_at: now,
    error_message: "The approval request expired before it was approved.",
  });

  const strandedBefore = new Date(now.getTime() - worker.strandedAfterSeconds * 1000);
  const stranded = (await ctx
    .db("operations")
    .where((q) =>
      q
        .where((s) =>
          s
            .whereIn("state", ["approved", "queued"])
            .whereRaw("coalesce(queued_at, decided_at, created_at) < ?", [strandedBefore]),
        )
        .orWhere({ state: "dispatch_failed" }),
    )
    .orderBy("updated_at")
    .limit(REDISPATCH_BATCH)
    .select("id")) as Array<{ id: string }>;
  let redispatchFailed = 0;
  for (const { id } of stranded) {
    const state = await dispatchOperation(ctx, id);
    if (state === "dispatch_failed") redispatchFailed += 1;
  }

  const overdue = await moveTimedOut(ctx, "running", ["deadline_at", "<", now], {
    state: "outcome_unknown",
    error_code: "outcome_unknown",
    error_message:
      "The worker stopped or the operation ran past its deadline; inspect existing records before retrying.",
    finished_at: now,
    updated_at: now,
  });

  const failed: string[] = [];
  const step = async (name: string, fn: () => Promise<number>): Promise<number> => {
    try {
      return await fn();
    } catch (err) {
      failed.push(name);
      ctx.log.error({ step: name, errName: (err as Error)?.name }, "maintenance step failed");
      return 0;
    }
  };
  const rateLimitRows = await step("rate_limits", () =>
    ctx.db("rate_limits").where("expire", "<", now.getTime()).delete(),
  );
  const idempotencyRecords = await step("idempotency", () => sweepIdempotencyRecords(ctx, now));
  const schedulesPublished = await step("schedules", () => publishDueSchedules(ctx, SCHEDULE_BATCH));
  const unusedClients = await step("oauth_clients", () => deleteUnusedClients(ctx, now));
  const carouselRunsRefunded = await step("carousel_runs", () => settleStrandedCarouselRuns(ctx.db, now));
  const rendersRedispatched = await step("carousel_renders", () =>
    redispatchStrandedRenders(ctx, strandedBefore),
  );
  const automationRunsFailed = await step(
    "automation_runs",
    async () => (await failCrashedAutomationRuns(ctx)).length,
  );
  let purged: PurgeReport = {
    browser_sessions: 0,
    oauth_consent_nonces: 0,
    oauth_authorization_codes: 0,
    social_connect_states: 0,
    login_throttle: 0,
  };
  await step("purge", async () => {
    purged = await purgeExpired(ctx, now);
    return 0;
  });

  const report: MaintenanceReport = {
    expired,
    redispatched: stranded.length,
    redispatchFailed,
    overdue,
    schedulesPublished,
    carouselRunsRefunded,
    rendersRedispatched,
    automationRunsFailed,
    rateLimitRows,
    idempotencyRecords,
    unusedClients,
    purged,
  };
  ctx.log.info(report, "maintenance pass");
  if (failed.length > 0) throw new Error(`maintenance steps failed: ${failed.join(", ")}`);
  return report;
}

/**
 * Deletes idempotency records created before `now` - IDEMPOTENCY_RETENTION_SECONDS whose operation (if
 * any) is final or gone, in batches. @returns the number deleted.
 */
async function sweepIdempotencyRecords(ctx: AppContext, now: Date): Promise<number> {
  const before = new Date(now.getTime() - IDEMPOTENCY_RETENTION_SECONDS * 1000);
  let total = 0;
  while (total < IDEMPOTENCY_SWEEP_MAX) {
    const result = await ctx.db.raw(
      `delete from idempotency_records where ctid in (
         select r.ctid from idempotency_records r
         where r.created_at < ?
           and (r.operation_id is null or not exists (
             select 1 from operations o where o.id = r.operation_id and o.state <> all(?::text[])))
         limit ?)`,
      [before, [...FINAL_STATES], IDEMPOTENCY_BATCH],
    );
    const n = result.rowCount ?? 0;
    total += n;
    if (n < IDEMPOTENCY_BATCH) break;
  }
  return total;
}

/** Clients deleted per pass at most (the next pass takes the rest). */
const UNUSED_CLIENT_BATCH = 1000;

/**
 * Deletes registered clients created before `now` - `worker.unusedClientTtlSeconds` for which no access
 * token was ever issued (no grant of theirs reached the token exchange). Their grants without tokens and
 * those grants' codes go with them (foreign keys cascade); a client with any issued token is kept.
 * @returns the number of clients deleted.
 */
export async function deleteUnusedClients(ctx: AppContext, now: Date): Promise<number> {
  const before = new Date(now.getTime() - ctx.config.worker.unusedClientTtlSeconds * 1000);
  const result = await ctx.db.raw(
    `delete from oauth_clients where client_id in (
       select c.client_id from oauth_clients c
       where c.created_at < ?
         and not exists (
           select 1 from oauth_grants g join oauth_access_tokens a on a.grant_id = g.id
           where g.client_id = c.client_id)
       limit ?)`,
    [before, UNUSED_CLIENT_BATCH],
  );
  return result.rowCount ?? 0;
}
