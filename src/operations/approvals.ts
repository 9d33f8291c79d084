/**
 * Browser approval decisions (service spec 3.1, 4.4): the owner approves or declines an operation in
 * `approval_required`.
 * - approve within the TTL with the grant live, the user active, the membership present and the scope still
 *   granted -> `approved` (one conditional UPDATE: of N concurrent approvals exactly one wins), then one
 *   pg-boss job -> `queued` (or `dispatch_failed`);
 * - decline, expiry, or an authorization that no longer holds -> `denied`;
 * - a record the request was described from (ApprovalDescription `versions`) changed since, or the content
 *   the page showed (ApprovalDescription `content`: slides, caption, title, media, Pinterest link and board) no
 *   longer matches its fingerprint -> `denied` as stale: what the user approves is what they saw.
 * Only the operation's own user can decide; for anyone else the operation does not exist.
 */
import type { AppContext } from "../context.ts";
import { dispatchOperation } from "../domain/operations/dispatch.ts";
import { approvedContent, contentFingerprint } from "../domain/social/content.ts";
import { withFirstComment } from "../domain/social/first-comment.ts";
import { factsFingerprint, publishFacts } from "../domain/automations/publish-binding.ts";
import { authorizationProblem } from "./execute.ts";
import {
  loadOperation,
  type OperationRow,
  openDescription,
  type OperationState,
} from "../domain/operations/store.ts";
import { countApprovalDecided, countOperation } from "../observability/metrics.ts";
import { contextOf, inSpan, tracer } from "../observability/tracing.ts";

/**
 * True when a record the request was described from has changed since (its `updated_at` moved, or it is
 * gone): the page the user saw is no longer what would run.
 */
async function isStale(ctx: AppContext, op: Parameters<typeof openDescription>[1]): Promise<boolean> {
  const description = openDescription(ctx, op);
  if (!description) return false;
  // A request for several actions (schedule_posts) is stale when any of its items is.
  for (const d of [description, ...(description.items ?? [])]) {
    for (const v of d.versions ?? []) {
      if (v.table !== "posts" && v.table !== "automations") continue;
      const row = await ctx.db(v.table).where({ id: v.id }).first("updated_at");
      if (!row || new Date(row.updated_at).toISOString() !== v.updated_at) return true;
    }
    // The content the page showed, down to what is not on the post itself (the Pinterest link and board).
    const content = d.content;
    if (content && d.fingerprint) {
      const exists = await ctx.db("posts").where({ id: content.post_id }).first("id");
      if (!exists) return true;
      const now = withFirstComment(
        await approvedContent(ctx.db, content.post_id, content.destinations),
        content.first_comment,
      );
      if (contentFingerprint(now) !== d.fingerprint) return true;
    }
  }
  // What an automation publishes (its product's link, name and price), read again.
  const publish = description?.publish;
  if (publish) {
    const now = await publishFacts(ctx.db, {
      product_id: publish.facts?.product_id,
      social_account_ids: publish.facts?.social_account_ids,
    });
    if (factsFingerprint(now) !== publish.fingerprint) return true;
  }
  return false;
}

export type Decision = "approve" | "decline";

export type DecisionResult =
  | { kind: "not_found" }
  /** The operation was not awaiting approval any more (already decided, a second click, a replay). */
  | { kind: "not_pending"; state: OperationState }
  | { kind: "expired" }
  /** The connection lost its authorization; the request was denied. */
  | { kind: "forbidden" }
  | { kind: "declined" }
  /** What the request describes changed after it was made (e.g. a slide was regenerated); denied. */
  | { kind: "stale" }
  | { kind: "approved"; state: OperationState | undefined };

/**
 * Applies `decision` by `userId` (the browser session's user) to operation `operationId`. While tracing is
 * on, the decision is a span `approval` in the trace of the call that asked for it (the operation's
 * `trace_parent`), and the job it dispatches carries that span on (docs/operations.md "Traces").
 * Never throws for a decision that cannot apply; database errors propagate.
 */
export async function decideOperation(
  ctx: AppContext,
  operationId: string,
  userId: string,
  decision: Decision,
): Promise<DecisionResult> {
  const op = await loadOperation(ctx.db, operationId);
  if (!op || op.user_id !== userId) return { kind: "not_found" };
  if (!tracer) return decide(ctx, op, decision);
  return inSpan(
    "approval",
    {
      "gen_ai.tool.name": op.tool,
      "social_mcp.operation.id": op.id,
      "social_mcp.approval.decision": decision,
    },
    async (span) => {
      const result = await decide(ctx, op, decision);
      span.setAttribute("social_mcp.approval.result", result.kind);
      return result;
    },
    contextOf(op.trace_parent),
  );
}

/** `decideOperation` for the loaded operation `op` of the deciding user. */
async function decide(ctx: AppContext, op: OperationRow, decision: Decision): Promise<DecisionResult> {
  const now = ctx.clock.now();
  const pending = () => ctx.db("operations").where({ id: op.id, state: "approval_required" });
  const deny = async (fields: Record<string, unknown> = {}) => {
    const n = await pending().update({
      state: "denied",
      decision: "declined",
      decided_at: now,
      updated_at: now,
      ...fields,
    });
    if (n > 0) {
      countOperation(op.tool, "denied");
      countApprovalDecided(op.tool, fields.decision === "expired" ? "expired" : "declined");
    }
    return n;
  };
  const notPending = async (): Promise<DecisionResult> => {
    const row = await ctx.db("operations").where({ id: op.id }).first("state");
    return { kind: "not_pending", state: row?.state as OperationState };
  };

  if (op.state !== "approval_required") return notPending();
  if (decision === "decline") return (await deny()) > 0 ? { kind: "declined" } : notPending();
  if (!op.approval_expires_at || op.approval_expires_at.getTime() <= now.getTime()) {
    await deny({
      decision: "expired",
      error_message: "The approval request expired before it was approved.",
    });
    return { kind: "expired" };
  }
  const problem = await authorizationProblem(ctx, op);
  if (problem) {
    const n = await deny({ error_code: problem.code, error_message: problem.message });
    return n > 0 ? { kind: "forbidden" } : notPending();
  }
  if (await isStale(ctx, op)) {
    const n = await deny({
      error_message:
        "The post, its Pinterest link or board, the automation, or the product it publishes changed after this approval was requested; request approval again so that you approve what will run.",
    });
    return n > 0 ? { kind: "stale" } : notPending();
  }
  const won = await pending()
    .where("approval_expires_at", ">", now)
    .update({ state: "approved", decision: "approved", decided_at: now, updated_at: now });
  if (won === 0) return notPending();
  countOperation(op.tool, "approved");
  countApprovalDecided(op.tool, "approved");
  ctx.log.info({ operation_id: op.id, tool: op.tool }, "operation approved");
  return { kind: "approved", state: await dispatchOperation(ctx, op.id) };
}
