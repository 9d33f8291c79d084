/**
 * The review and queued paths of the tool pipeline (DESIGN.md section 3, service spec 3.1).
 * Both run inside the idempotency transaction (`runIdempotent`), so the operation, the native records
 * `accept` creates and the idempotency record commit together or not at all.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "../db/knex.ts";
import { ToolError } from "../errors.ts";
import { afterCommit } from "./after-commit.ts";
import type {
  ApprovalDescription,
  Envelope,
  NextStep,
  RegisteredTool,
  ToolContext,
  ToolOutput,
} from "../tool-contract.ts";
import { MAX_WAIT_SECONDS } from "../domain/long-poll.ts";
import { dispatchOperation } from "../domain/operations/dispatch.ts";
import { approvalUrl, insertOperation, type NewOperation } from "../domain/operations/store.ts";

/** The operation's id and who started it with which tool: the caller's grant, user, workspace and client. */
function startedBy(
  tctx: ToolContext,
  tool: RegisteredTool,
  operationId: string,
): Pick<
  NewOperation,
  "id" | "grantId" | "userId" | "workspaceId" | "clientId" | "tool" | "toolScope" | "requestId"
> {
  return {
    id: operationId,
    grantId: tctx.auth.grantId,
    userId: tctx.auth.userId,
    workspaceId: tctx.auth.workspaceId,
    clientId: tctx.auth.clientId,
    tool: tool.name,
    toolScope: tool.scope,
    requestId: tctx.requestId,
  };
}

/**
 * A path of a tools/call that starts an operation (review or queued): runs in the call's transaction `trx`,
 * records the operation and returns the call's envelope.
 */
export type OperationPath = (
  tctx: ToolContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  trx: Knex.Transaction,
) => Promise<Envelope>;

/** What each handler step returns. */
interface StepOutput {
  describe: ApprovalDescription;
  accept: ToolOutput<Record<string, unknown>>;
}

/** The internal error of a tool registered on a path without the step it needs. */
const MISSING_STEP = { describe: "cannot be reviewed", accept: "has no accept step" } as const;

/**
 * Runs the handler's `step` (`describe` of a review tool, `accept` of a queued one) with the call's context in
 * `trx`, under the operation id the call carries (a worker's retry) or a new one.
 * @throws ToolError from the step; `internal_error` when the tool has no such step.
 */
async function runStep<S extends keyof StepOutput>(
  tctx: ToolContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  trx: Knex.Transaction,
  step: S,
): Promise<{ operationId: string; output: StepOutput[S] }> {
  const run = tool.handler[step] as ((args: unknown, ctx: ToolContext) => Promise<StepOutput[S]>) | undefined;
  if (!run) throw new ToolError("internal_error", `tool ${tool.name} ${MISSING_STEP[step]}`);
  const operationId = tctx.operationId ?? randomUUID();
  const output = await run.call(tool.handler, args, { ...tctx, operationId, db: trx });
  return { operationId, output };
}

/** The long poll of an operation's state that follows a review or queued call (DESIGN.md section 3 `next`). */
export function pollOperation(operationId: string, afterSeconds: number): NextStep {
  return {
    tool: "get_job_status",
    arguments: { operation_id: operationId, wait_seconds: MAX_WAIT_SECONDS },
    after_seconds: afterSeconds,
  };
}

/**
 * Review path: runs `tool.handler.describe` (validates ownership: `not_found` for records the caller does
 * not own; builds the approval page text), records an operation in `approval_required` with the sealed
 * arguments and description, expiring `config.worker.approvalTtlSeconds` (1800 s) from now, and returns
 * `{request_id, status: "approval_required", operation_id, approval_url, data: {summary, expires_at}, next}`:
 * the sentence the agent can tell the user, when the link expires, and the long poll of get_job_status.
 * Nothing runs until the owner approves in the browser (src/operations/approvals.ts).
 * @throws ToolError from `describe`; `internal_error` when the tool has no `describe`.
 */
export const startReview: OperationPath = async (tctx, tool, args, trx) => {
  const ctx = tctx.app;
  const { operationId, output: description } = await runStep(tctx, tool, args, trx, "describe");
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ctx.config.worker.approvalTtlSeconds * 1000);
  await insertOperation(ctx, trx, {
    ...startedBy(tctx, tool, operationId),
    state: "approval_required",
    args,
    description,
    approvalExpiresAt: expiresAt,
    now,
  });
  return {
    request_id: tctx.requestId,
    status: "approval_required",
    operation_id: operationId,
    approval_url: approvalUrl(ctx, operationId),
    // The summary's schema bound (codegen/envelope.ts REVIEW_DATA); descriptions stay well below it.
    data: { summary: description.summary.slice(0, 2000), expires_at: expiresAt.toISOString() },
    next: pollOperation(operationId, 2),
  };
};

/**
 * Queued path: runs `tool.handler.accept` in `trx` (creates the native records, charges credits, returns
 * their ids), records an operation in `queued` with the sealed arguments and accepted output, and returns
 * `{request_id, status: "queued", operation_id, data, credits_charged?, next}` (`next`: what `accept` named,
 * else the long poll of get_job_status 2 s later). The pg-boss job is sent after the transaction commits;
 * when that fails the operation and the envelope become `dispatch_failed` (a retry of the identical call with
 * the same key, or maintenance, dispatches it again).
 * @throws ToolError from `accept`; `internal_error` when the tool has no `accept`.
 */
export const startQueued: OperationPath = async (tctx, tool, args, trx) => {
  const { operationId, output: accepted } = await runStep(tctx, tool, args, trx, "accept");
  return queueOperation(tctx, tool, args, trx, operationId, accepted);
};

/**
 * The queued path of a deferrable inline tool whose `execute` handed its work to the worker (`output.queue`,
 * src/tool-contract.ts DeferrableToolHandler): records the operation with `output` as its accepted data, as
 * startQueued does, and answers `queued`; the worker calls `execute` again with that data.
 */
export function startDeferred(
  tctx: ToolContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  trx: Knex.Transaction,
  output: ToolOutput<Record<string, unknown>>,
): Promise<Envelope> {
  const { queue: _queue, ...accepted } = output;
  return queueOperation(tctx, tool, args, trx, tctx.operationId ?? randomUUID(), accepted);
}

/** Records operation `operationId` of `tool` in `queued` with `accepted`, dispatched after commit; its envelope. */
async function queueOperation(
  tctx: ToolContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  trx: Knex.Transaction,
  operationId: string,
  accepted: ToolOutput<Record<string, unknown>>,
): Promise<Envelope> {
  const ctx = tctx.app;
  await insertOperation(ctx, trx, {
    ...startedBy(tctx, tool, operationId),
    state: "queued",
    args,
    accepted,
  });
  afterCommit(trx, async (envelope) => {
    const state = await dispatchOperation(ctx, operationId);
    return state === "dispatch_failed" ? { ...envelope, status: "dispatch_failed" } : envelope;
  });
  const envelope: Envelope = {
    request_id: tctx.requestId,
    status: "queued",
    operation_id: operationId,
    data: (accepted.data ?? {}) as Record<string, unknown>,
    next: accepted.next ?? pollOperation(operationId, 2),
  };
  if (accepted.credits_charged !== undefined) envelope.credits_charged = accepted.credits_charged;
  return envelope;
}
