/**
 * The review and queued paths of the tool pipeline (issue 5, DESIGN.md section 3).
 * PLACEHOLDER: the operations issue implements them; the signatures are the contract of src/runtime/.
 */
import { ToolError } from "../errors.ts";
import type { Knex } from "../db/knex.ts";
import type { Envelope, RegisteredTool, ToolContext } from "../runtime/types.ts";

/**
 * Review path: runs `tool.handler.describe`, records an operation in `approval_required` with the sealed
 * arguments, and returns the envelope with `operation_id` and `approval_url`. Nothing runs.
 * `trx` is the idempotency transaction.
 */
export async function startReview(
  _tctx: ToolContext,
  _tool: RegisteredTool,
  _args: Record<string, unknown>,
  _trx: Knex.Transaction,
): Promise<Envelope> {
  throw new ToolError("internal_error", "review path not available yet");
}

/**
 * Queued path: runs `tool.handler.accept` in `trx`, records an operation in `queued`, dispatches it after
 * commit (failure -> `dispatch_failed`), and returns the `queued` envelope with `operation_id` and the
 * accepted `data`.
 */
export async function startQueued(
  _tctx: ToolContext,
  _tool: RegisteredTool,
  _args: Record<string, unknown>,
  _trx: Knex.Transaction,
): Promise<Envelope> {
  throw new ToolError("internal_error", "queued path not available yet");
}
