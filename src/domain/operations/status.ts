/**
 * Operation status for `get_job_status` (service spec 2.5, 3.1): visible only to the connection that created
 * the operation (same grant, user and workspace) and only with the original tool's scope; otherwise the
 * operation does not exist (`not_found`, never revealing that another connection's operation exists).
 */
import { isUuid } from "../../ids.ts";
import type { Knex } from "../../db/knex.ts";
import { rowBinding, type Sealer } from "../../crypto/seal.ts";
import { type ErrorCode, notFound } from "../../errors.ts";
import type { AuthContext, ToolOutput } from "../../tool-contract.ts";
import { loadOperation, type OperationState } from "./store.ts";

/** `data` of `get_job_status` (tools.yaml). Timestamps are ISO 8601 strings. */
export interface JobStatus {
  operation_id: string;
  tool: string;
  status: OperationState;
  created_at: string;
  updated_at: string;
  approval_expires_at: string | null;
  /** The started tool's result, once `succeeded`. */
  result?: unknown;
  /** On `failed` and `outcome_unknown`. */
  error?: { code: ErrorCode; message: string };
}

/**
 * Reads operation `operationId` for `auth`.
 * @throws ToolError `not_found` for an unknown id, another grant/user/workspace, or a token lacking the scope
 *   of the tool that started the operation.
 */
export async function jobStatus(
  db: Knex | Knex.Transaction,
  sealer: Sealer,
  auth: AuthContext,
  operationId: string,
): Promise<JobStatus> {
  const op = isUuid(operationId) ? await loadOperation(db, operationId) : undefined;
  if (
    !op ||
    op.grant_id !== auth.grantId ||
    op.user_id !== auth.userId ||
    op.workspace_id !== auth.workspaceId ||
    !op.tool_scope ||
    !auth.scopes.has(op.tool_scope)
  ) {
    throw notFound("operation");
  }
  const status: JobStatus = {
    operation_id: op.id,
    tool: op.tool,
    status: op.state,
    created_at: op.created_at.toISOString(),
    updated_at: op.updated_at.toISOString(),
    approval_expires_at: op.approval_expires_at ? op.approval_expires_at.toISOString() : null,
  };
  if (op.state === "succeeded" && op.result_sealed)
    status.result = sealer.open<ToolOutput>(
      op.result_sealed,
      rowBinding("operations", "result_sealed", op.id),
    ).data;
  if (op.state === "failed" || op.state === "outcome_unknown") {
    status.error = {
      code: op.error_code ?? (op.state === "failed" ? "internal_error" : "outcome_unknown"),
      message:
        op.error_message ?? "The outcome could not be confirmed; inspect existing records before retrying.",
    };
  }
  return status;
}
