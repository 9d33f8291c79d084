/**
 * The review and queued paths of the tool pipeline (DESIGN.md section 3, service spec 3.1).
 * Both run inside the idempotency transaction (`runIdempotent`), so the operation, the native records
 * `accept` creates and the idempotency record commit together or not at all.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "../db/knex.ts";
import { ToolError } from "../errors.ts";
import { afterCommit } from "./after-commit.ts";
import type { Envelope, RegisteredTool, ToolContext } from "../tool-contract.ts";
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
 * Review path: runs `tool.handler.describe` (validates ownership: `not_found` for records the caller does
 * not own; builds the approval page text), records an operation in `approval_required` with the sealed
 * arguments and description, expiring `config.worker.approvalTtlSeconds` (1800 s) from now, and returns
 * `{request_id, status: "approval_required", operation_id, approval_url}`. Nothing runs until the owner
 * approves in the browser (src/operations/approvals.ts).
 * @throws ToolError from `describe`; `internal_error` when the tool has no `describe`.
 */
export async function startReview(
  tctx: ToolContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  trx: Knex.Transaction,
): Promise<Envelope> {
  const ctx = tctx.app;
  if (!tool.handler.describe) throw new ToolError("internal_error", `tool ${tool.name} cannot be reviewed`);
  const operationId = tctx.operationId ?? randomUUID();
  const opCtx: ToolContext = { ...tctx, operationId, db: trx };
  const description = await tool.handler.describe(args, opCtx);
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
  };
}

/**
 * Queued path: runs `tool.handler.accept` in `trx` (creates the native records, charges credits, returns
 * their ids), records an operation in `queued` with the sealed arguments and accepted output, and returns
 * `{request_id, status: "queued", operation_id, data, credits_charged?}`. The pg-boss job is sent after the
 * transaction commits; when that fails the operation and the envelope become `dispatch_failed` (a retry of
 * the identical call with the same key, or maintenance, dispatches it again).
 * @throws ToolError from `accept`; `internal_error` when the tool has no `accept`.
 */
export async function startQueued(
  tctx: ToolContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  trx: Knex.Transaction,
): Promise<Envelope> {
  const ctx = tctx.app;
  if (!tool.handler.accept) throw new ToolError("internal_error", `tool ${tool.name} has no accept step`);
  const operationId = tctx.operationId ?? randomUUID();
  const opCtx: ToolContext = { ...tctx, operationId, db: trx };
  const accepted = await tool.handler.accept(args, opCtx);
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
  };
  if (accepted.credits_charged !== undefined) envelope.credits_charged = accepted.credits_charged;
  return envelope;
}
