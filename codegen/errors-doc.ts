/**
 * Where each domain error code of src/errors.ts reaches a client (service spec 7), as the guide publishes
 * it. The codes and their meanings come from src/errors.ts; this adds the layer and the occasion, checked
 * against the runtime (src/runtime/pipeline.ts, src/operations/execute.ts, src/domain/operations/status.ts,
 * src/mcp/dispatch.ts). A code missing here fails codegen (see `errorOccasion`).
 */
import type { ErrorCode } from "../src/errors.ts";

const OCCASIONS: Record<ErrorCode, string> = {
  invalid_arguments:
    "Tool result. `arguments` is not an object, or holds an argument the tool does not know (`details.unknown_arguments`).",
  validation_failed:
    "Tool result. A schema violation (`details`: `[{instancePath, keyword, message, allowed_values?}]`, each message naming the field and the rule in plain words: which field is required when, the allowed values, the closest of several allowed forms) or a domain rule (for example a TikTok destination, a past `scheduled_for`, an unapproved carousel to publish).",
  not_found:
    "Tool result. Also from `get_job_status` for an operation of another connection, or when the token lacks the scope of the tool that started it.",
  insufficient_scope:
    "Never in a tool result: a known tool whose scope the token lacks is refused with HTTP 403 and a `WWW-Authenticate` `insufficient_scope` challenge.",
  forbidden:
    "Tool result: plan (analytics needs Pro), plan quotas, too few credits (`details.credits_required`, `details.credits_balance`). In an operation's `error` when the connection, membership or scope was lost before the worker ran it.",
  account_setup_required: "Reserved; no tool returns it at present.",
  integration_disabled:
    "In an operation's `error` (`get_job_status`) when the operator disabled MCP before the worker ran it; the endpoint itself then answers HTTP 404.",
  idempotency_conflict: "Tool result. The same `idempotency_key` with other arguments for the same tool.",
  rate_limited:
    "Tool result with `error.retry_after` (seconds): the user's per-minute budget for the tool is spent. The per-IP limit of the endpoint is HTTP 429 instead.",
  internal_error:
    "Tool result (nothing was stored: the same key may be sent again), or an operation's `error` when the worker could not start the handler.",
  outcome_unknown:
    "In an operation's `error` with state `outcome_unknown` (`get_job_status`): the worker stopped or overran, or the action ran but its result could not be confirmed. Inspect the records before using a new key.",
};

/** @returns where `code` reaches a client. @throws Error for a code this table does not describe. */
export function errorOccasion(code: string): string {
  const text = (OCCASIONS as Record<string, string>)[code];
  if (text === undefined) throw new Error(`codegen/errors-doc.ts does not describe the error code ${code}`);
  return text;
}
