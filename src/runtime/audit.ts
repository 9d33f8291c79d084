/**
 * Audit records (service spec 2.8): one row per tools/call with the request, user, workspace, grant and
 * operation ids, the tool, the argument NAMES (never values, prompts, captions, URLs or secrets), the
 * duration, the envelope status and the error code; and one row per background execution of an operation
 * by a worker (`origin: "worker"`, status = the operation's final state), so work done after the call
 * answered is audited too.
 */
import type { AppContext } from "../context.ts";
import type { AuthContext, Envelope } from "../tool-contract.ts";

const MAX_NAMES = 64;
const MAX_NAME_LENGTH = 64;

/** The sorted, bounded top-level argument names of `args` (client-chosen keys, truncated; no values). */
export function argumentNames(args: unknown): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return [];
  return Object.keys(args)
    .sort()
    .slice(0, MAX_NAMES)
    .map((n) => n.slice(0, MAX_NAME_LENGTH));
}

export interface AuditEntry {
  requestId: string;
  auth: Pick<AuthContext, "userId" | "workspaceId" | "grantId">;
  tool: string;
  args: unknown;
  durationMs: number;
  envelope: Pick<Envelope, "status" | "operation_id"> & { error?: { code: string } | undefined };
  /** `call` (default): a tools/call; `worker`: a background execution of an operation. */
  origin?: "call" | "worker";
}

/**
 * Writes the audit row. Never throws: a failure is logged (with the request id) and the call's result
 * stands, because the effect has already happened.
 */
export async function writeAudit(ctx: AppContext, entry: AuditEntry): Promise<void> {
  try {
    await ctx.db("audit_records").insert({
      request_id: entry.requestId,
      user_id: entry.auth.userId,
      workspace_id: entry.auth.workspaceId,
      grant_id: entry.auth.grantId,
      operation_id: entry.envelope.operation_id ?? null,
      tool: entry.tool,
      argument_names: argumentNames(entry.args),
      duration_ms: Math.max(0, Math.round(entry.durationMs)),
      status: entry.envelope.status,
      error_code: entry.envelope.error?.code ?? null,
      origin: entry.origin ?? "call",
    });
  } catch (err) {
    ctx.log.error(
      { requestId: entry.requestId, tool: entry.tool, errName: (err as Error)?.name },
      "audit write failed",
    );
  }
}
