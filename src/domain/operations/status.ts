/**
 * Operation status for `get_job_status` (service spec 2.5, 3.1): visible only to the connection that created
 * the operation (same grant, user and workspace) and only with the original tool's scope; otherwise the
 * operation does not exist (`not_found`, never revealing that another connection's operation exists).
 * While the request waits for approval it carries the approval URL again (an agent that lost it can show it);
 * a failure carries how to recover (`retry`, and the page where a person acts); `jobFollowUp` names the next
 * call (DESIGN.md section 3 `next`).
 */
import { isUuid } from "../../ids.ts";
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { rowBinding } from "../../crypto/seal.ts";
import { absoluteUrls, type ErrorCode, notFound, RETRY_BY_CODE, type Retry } from "../../errors.ts";
import type { AuthContext, NextStep, ToolOutput } from "../../tool-contract.ts";
import { MAX_WAIT_SECONDS } from "../long-poll.ts";
import { approvalUrl, loadOperation, type OperationRow, type OperationState } from "./store.ts";

/** `data` of `get_job_status` (tools.yaml). Timestamps are ISO 8601 strings. */
export interface JobStatus {
  operation_id: string;
  tool: string;
  status: OperationState;
  created_at: string;
  updated_at: string;
  approval_expires_at: string | null;
  /** In `approval_required`: the page where the user decides (absolute URL). */
  approval_url?: string;
  /** The started tool's result, once `succeeded`. */
  result?: Record<string, unknown>;
  /** On `failed` and `outcome_unknown`. */
  error?: { code: ErrorCode; message: string; retry: Retry; details?: { action_url: string } };
}

/** States in which an operation still changes by itself (or by the user's decision). */
const IN_PROGRESS: ReadonlySet<OperationState> = new Set([
  "approval_required",
  "approved",
  "queued",
  "running",
  "dispatch_failed",
]);

/** True when the operation will not change any more. */
export function jobSettled(status: Pick<JobStatus, "status">): boolean {
  return !IN_PROGRESS.has(status.status);
}

/**
 * Reads operation `operationId` for `auth`.
 * @throws ToolError `not_found` for an unknown id, another grant/user/workspace, or a token lacking the scope
 *   of the tool that started the operation.
 */
export async function jobStatus(
  app: Pick<AppContext, "sealer" | "config">,
  db: Knex | Knex.Transaction,
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
  if (op.state === "approval_required") status.approval_url = approvalUrl(app as AppContext, op.id);
  if (op.state === "succeeded" && op.result_sealed)
    status.result = app.sealer.open<ToolOutput>(
      op.result_sealed,
      rowBinding("operations", "result_sealed", op.id),
    ).data;
  if (op.state === "failed" || op.state === "outcome_unknown") status.error = operationError(app, op);
  return status;
}

/** The error of a failed or unknown operation, with its recovery and absolute page URLs. */
function operationError(app: Pick<AppContext, "config">, op: OperationRow): NonNullable<JobStatus["error"]> {
  const code = op.error_code ?? (op.state === "failed" ? "internal_error" : "outcome_unknown");
  const base = app.config.publicBaseUrl;
  const message =
    op.error_message ?? "The outcome could not be confirmed; inspect existing records before retrying.";
  const error: NonNullable<JobStatus["error"]> = {
    code,
    message: absoluteUrls(message, base),
    retry: op.error_retry ?? (op.error_action_path ? "after_user_action" : RETRY_BY_CODE[code]),
  };
  if (op.error_action_path) error.details = { action_url: `${base}${op.error_action_path}` };
  return error;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * The next call after reading `status` (DESIGN.md section 3 `next`): the same poll while the operation is in
 * progress (with the long poll; at once after a call that waited, else after 5 s), and once it succeeded the
 * native record that follows the work: get_schedule for schedule_post, list_deliveries for publish_post,
 * get_carousel for the carousel tools, get_automation_run for run_automation. undefined when nothing follows.
 * @param waited whether the call that read `status` waited (wait_seconds > 0).
 */
export function jobFollowUp(status: JobStatus, waited: boolean): NextStep | undefined {
  if (IN_PROGRESS.has(status.status)) {
    const poll: NextStep = {
      tool: "get_job_status",
      arguments: { operation_id: status.operation_id, wait_seconds: MAX_WAIT_SECONDS },
      after_seconds: waited ? 0 : 5,
    };
    if (status.status === "approval_required")
      poll.note = `The request waits for the user's decision in the browser${status.approval_url ? ` (${status.approval_url})` : ""}.`;
    return poll;
  }
  if (status.status !== "succeeded" || !status.result) return undefined;
  const r = status.result;
  switch (status.tool) {
    case "schedule_post": {
      const id = str(r.schedule_id);
      return id ? { tool: "get_schedule", arguments: { schedule_id: id }, after_seconds: 0 } : undefined;
    }
    case "schedule_posts": {
      const first = (r.schedules as Array<{ schedule_id?: unknown }> | undefined)?.[0];
      const id = str(first?.schedule_id);
      return id
        ? {
            tool: "get_schedule",
            arguments: { schedule_id: id },
            after_seconds: 0,
            note: "Each item of data.result.schedules has its own schedule_id.",
          }
        : undefined;
    }
    case "publish_post": {
      const id = str(r.post_id);
      return id ? { tool: "list_deliveries", arguments: { post_id: id }, after_seconds: 5 } : undefined;
    }
    case "generate_carousel":
    case "regenerate_carousel_slide":
    case "retry_carousel": {
      const id = str(r.post_id);
      return id
        ? {
            tool: "get_carousel",
            arguments: { post_id: id, wait_seconds: MAX_WAIT_SECONDS },
            after_seconds: 0,
          }
        : undefined;
    }
    case "run_automation": {
      const id = str(r.run_id);
      const kind = str(r.kind);
      return id && kind
        ? {
            tool: "get_automation_run",
            arguments: { kind, run_id: id, wait_seconds: MAX_WAIT_SECONDS },
            after_seconds: 0,
          }
        : undefined;
    }
    default:
      return undefined;
  }
}
