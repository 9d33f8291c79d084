/**
 * Executing one operation in a worker (service spec 3.1, DESIGN.md section 3):
 * 1. claim: one conditional UPDATE `approved`/`queued` -> `running` (sets claimed_at, deadline_at,
 *    attempts + 1); a duplicate delivery, a second worker or a replay finds nothing to claim and does nothing;
 * 2. re-check the grant (not revoked), the user (active), the membership, the scope and the MCP enabled flag:
 *    failure -> `failed` with `forbidden` or `integration_disabled`, the handler never runs;
 * 3. run `handler.execute(input, ctx, accepted)` with an AbortSignal and the deadline
 *    (OPERATION_DEADLINE_SECONDS): return -> the result's `data` is checked against the tool's `result`
 *    schema (generated/registry.ts RESULT_VALIDATORS) -> `succeeded` (result sealed), or on a mismatch
 *    `outcome_unknown` (the effect ran: never `failed`, whose advice is a new key; the issues are logged
 *    with the operation id, never stored or shown);
 *    ToolError -> `failed` (code and message); any other exception or the deadline passing ->
 *    `outcome_unknown`. Never replayed.
 * 4. on `failed`/`outcome_unknown`, carousel runs of the operation still `queued` (never started) are closed
 *    `failed` and their credits refunded once (src/domain/carousels/settle.ts).
 * Every final transition is conditional on the row still being `running` in this attempt, and writes an
 * audit row (`origin: "worker"`: who, tool, argument names, final state, error code; never values).
 */
import { rowBinding } from "../crypto/seal.ts";
import { readMcpEnabled } from "../domain/service/mcp-switch.ts";
import { randomUUID } from "node:crypto";
import { RESULT_VALIDATORS } from "../../generated/registry.ts";
import type { AppContext } from "../context.ts";
import type { ErrorCode } from "../errors.ts";
import { ToolError } from "../errors.ts";
import { countOperation } from "../observability/metrics.ts";
import { writeAudit } from "../runtime/audit.ts";
import type { Envelope, ToolContext, ToolOutput } from "../tool-contract.ts";
import type { OperationRow, OperationState } from "../domain/operations/store.ts";
import { failUnstartedCarouselRuns } from "../domain/carousels/settle.ts";
import { type ToolLookup, toolLookup } from "./tools.ts";

export interface ProcessOptions {
  /** Aborted when the worker stops (pg-boss job signal); the handler sees it through its own signal. */
  signal?: AbortSignal;
  /** Overrides the tool lookup (default: src/operations/tools.ts). */
  lookup?: ToolLookup;
}

export interface ProcessResult {
  /** False when the claim found nothing (already claimed, finished, denied or unknown id). */
  claimed: boolean;
  /** The state this run left the operation in (when claimed). */
  state?: OperationState;
}

/**
 * Claims and runs `operationId`. Never throws for handler failures (they become states); database errors
 * propagate (the operation then stays `running` and maintenance marks it `outcome_unknown` after its
 * deadline).
 */
export async function processOperation(
  ctx: AppContext,
  operationId: string,
  options: ProcessOptions = {},
): Promise<ProcessResult> {
  const now = ctx.clock.now();
  const deadline = new Date(now.getTime() + ctx.config.worker.operationDeadlineSeconds * 1000);
  const [op] = (await ctx
    .db("operations")
    .where({ id: operationId })
    .whereIn("state", ["approved", "queued"])
    .update({
      state: "running",
      claimed_at: now,
      deadline_at: deadline,
      lease_expires_at: leaseUntil(ctx, now),
      attempts: ctx.db.raw("attempts + 1"),
      updated_at: now,
    })
    .returning("*")) as OperationRow[];
  if (!op) {
    ctx.log.info(
      { operation_id: operationId },
      "operation not claimable (duplicate delivery or already decided)",
    );
    return { claimed: false };
  }
  countOperation(op.tool, "running");
  const requestId = randomUUID();
  const log = ctx.log.child({ operation_id: op.id, tool: op.tool, attempt: op.attempts, requestId });
  const started = performance.now();
  const finish = async (state: OperationState, fields: Record<string, unknown>): Promise<ProcessResult> => {
    const at = ctx.clock.now();
    const n = await ctx
      .db("operations")
      .where({ id: op.id, state: "running", attempts: op.attempts })
      .update({ state, ...fields, finished_at: at, updated_at: at });
    if (n === 0) log.warn({ state }, "operation left running by another path; result not recorded");
    else {
      countOperation(op.tool, state);
      log.info({ state, error_code: fields.error_code ?? undefined }, "operation finished");
      await writeAudit(ctx, {
        requestId,
        auth: { userId: op.user_id, workspaceId: op.workspace_id, grantId: op.grant_id },
        tool: op.tool,
        args: argumentsOf(ctx, op),
        durationMs: performance.now() - started,
        envelope: {
          status: state as Envelope["status"],
          operation_id: op.id,
          error: typeof fields.error_code === "string" ? { code: fields.error_code } : undefined,
        },
        origin: "worker",
      });
    }
    const row = await ctx.db("operations").where({ id: op.id }).first("state");
    return { claimed: true, state: row?.state as OperationState };
  };
  const fail = async (code: ErrorCode, message: string, details?: unknown, recovery?: ToolError) => {
    const result = await finish(code === "outcome_unknown" ? "outcome_unknown" : "failed", {
      error_code: code,
      error_message: message,
      error_details: details === undefined ? null : JSON.stringify(details),
      error_retry: recovery ? recovery.retry : null,
      error_action_path: recovery?.recovery.actionPath ?? null,
    });
    // Paid work accepted for this operation that never started is closed and refunded (service spec 8).
    const settled = await failUnstartedCarouselRuns(
      ctx.db,
      op.id,
      `the operation ended before the run started: ${message} Its credits were refunded.`,
      ctx.clock.now(),
    );
    if (settled.length > 0) log.info({ runs: settled.length }, "unstarted carousel runs failed and refunded");
    return result;
  };

  const denied = await authorizationProblem(ctx, op);
  if (denied) return fail(denied.code, denied.message);
  const lookup = options.lookup ?? (await toolLookup(ctx));
  const tool = lookup(op.tool);
  if (!tool) return fail("internal_error", `the tool ${op.tool} is not available in this worker`);

  const input = ctx.sealer.open<Record<string, unknown>>(
    op.arguments_sealed,
    rowBinding("operations", "arguments_sealed", op.id),
  );
  const accepted = op.accepted_sealed
    ? ctx.sealer.open<ToolOutput>(op.accepted_sealed, rowBinding("operations", "accepted_sealed", op.id))
    : undefined;
  const grant = await ctx.db("oauth_grants").where({ id: op.grant_id }).first("scope");
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;
  const tctx: ToolContext = {
    app: ctx,
    auth: {
      userId: op.user_id,
      workspaceId: op.workspace_id,
      grantId: op.grant_id,
      clientId: op.client_id,
      scopes: new Set(
        String(grant?.scope ?? "")
          .split(" ")
          .filter(Boolean),
      ),
      tokenId: "",
    },
    requestId,
    operationId: op.id,
    db: ctx.db,
    signal,
    progress: () => {},
  };
  const overdue = Symbol("deadline");
  let timer: NodeJS.Timeout | undefined;
  const deadlinePassed = new Promise<typeof overdue>((resolve) => {
    timer = setTimeout(() => resolve(overdue), Math.max(0, deadline.getTime() - ctx.clock.now().getTime()));
  });
  log.info("operation running");
  // The lease: extended every third of its length while the handler runs, and only while it lasts. Losing it
  // (it ran out while the worker was paused, or the row was reaped or finished by another path) aborts the
  // handler, so a worker that was only paused never races a reaper or the one that took over.
  const beat = setInterval(
    () => {
      const at = ctx.clock.now();
      ctx
        .db("operations")
        .where({ id: op.id, state: "running", attempts: op.attempts })
        .where("lease_expires_at", ">", at)
        .update({ lease_expires_at: leaseUntil(ctx, at) })
        .then((n) => {
          if (n === 0) controller.abort(new Error("operation lease lost"));
        })
        .catch(() => {});
    },
    (ctx.config.worker.leaseSeconds * 1000) / 3,
  );
  beat.unref();
  try {
    const outcome = await Promise.race([tool.handler.execute(input, tctx, accepted?.data), deadlinePassed]);
    if (outcome === overdue) {
      controller.abort(new Error("operation deadline passed"));
      return await fail(
        "outcome_unknown",
        "The operation ran past its deadline; inspect existing records before retrying.",
      );
    }
    const issues = RESULT_VALIDATORS.get(op.tool)?.((outcome as ToolOutput | undefined)?.data) ?? [];
    if (issues.length > 0) {
      // The effect ran but its result breaks the published schema: a bug of the handler. The operation is
      // never `failed` then (whose advice, a new key, would do the action twice): it is `outcome_unknown`,
      // whose advice is to inspect the records first. Only the schema locations go to the log (never values).
      log.error(
        { issues: issues.slice(0, 10).map((i) => ({ path: i.instancePath, keyword: i.keyword })) },
        "operation result does not match the tool's result schema",
      );
      return await fail(
        "outcome_unknown",
        "The action ran, but its result could not be confirmed; inspect existing records before retrying (a new idempotency key would do it again).",
      );
    }
    return await finish("succeeded", {
      result_sealed: ctx.sealer.seal(outcome, rowBinding("operations", "result_sealed", op.id)),
      key_id: ctx.sealer.keyId,
    });
  } catch (err) {
    if (err instanceof ToolError && err.code !== "internal_error")
      return await fail(err.code, err.message, err.details, err);
    const e = err as { name?: unknown };
    log.error({ errName: e?.name }, "operation handler stopped unexpectedly");
    return await fail(
      "outcome_unknown",
      "The handler stopped unexpectedly; inspect existing records before retrying.",
    );
  } finally {
    clearTimeout(timer);
    clearInterval(beat);
    controller.abort();
  }
}

/** The lease end for a claim or heartbeat at `at`. */
function leaseUntil(ctx: AppContext, at: Date): Date {
  return new Date(at.getTime() + ctx.config.worker.leaseSeconds * 1000);
}

/** The operation's arguments for their names only (audit); undefined when they cannot be opened. */
function argumentsOf(ctx: AppContext, op: OperationRow): unknown {
  try {
    return ctx.sealer.open<Record<string, unknown>>(
      op.arguments_sealed,
      rowBinding("operations", "arguments_sealed", op.id),
    );
  } catch {
    return undefined;
  }
}

/**
 * Live authorization of an operation's connection (service spec 3.1 "authorization and the MCP enabled flag
 * are rechecked before executing"). @returns undefined when it may run.
 */
export async function authorizationProblem(
  ctx: AppContext,
  op: Pick<OperationRow, "grant_id" | "user_id" | "workspace_id" | "tool_scope">,
): Promise<{ code: ErrorCode; message: string } | undefined> {
  // Read from the database on every check: every worker sees the operator's `admin mcp disable` at once.
  if (!(await readMcpEnabled(ctx.db, ctx.config.mcpEnabled)))
    return { code: "integration_disabled", message: "The MCP integration is disabled by the operator." };
  const grant = await ctx
    .db("oauth_grants")
    .where({ id: op.grant_id })
    .first("revoked_at", "scope", "user_id", "workspace_id");
  const forbidden = {
    code: "forbidden" as const,
    message: "The connection is no longer authorized for this action.",
  };
  if (!grant || grant.revoked_at) return forbidden;
  if (grant.user_id !== op.user_id || grant.workspace_id !== op.workspace_id) return forbidden;
  if (op.tool_scope && !String(grant.scope).split(" ").includes(op.tool_scope)) return forbidden;
  const user = await ctx.db("users").where({ id: op.user_id }).first("status");
  if (user?.status !== "active") return forbidden;
  const workspace = await ctx.db("workspaces").where({ id: op.workspace_id }).first("status");
  if (workspace?.status !== "active") return forbidden;
  const member = await ctx
    .db("memberships")
    .where({ user_id: op.user_id, workspace_id: op.workspace_id })
    .first("role");
  if (!member) return forbidden;
  return undefined;
}
