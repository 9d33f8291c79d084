/**
 * Reaping expired worker leases (docs/operations.md "Leases"; service spec 3.1 "worker stopped"). A running
 * operation whose lease ran out lost its worker. A resumable tool (`ToolHandler.resumable`: it continues
 * from saved checkpoints) goes back to `queued` and is dispatched again, so another worker finishes it
 * within about one lease plus one reap interval; any other becomes `outcome_unknown` at once, never
 * replayed blindly. Each row is moved by one conditional UPDATE, so concurrent reapers on several workers
 * never both take it.
 */
import type { AppContext } from "../context.ts";
import { dispatchOperation } from "../domain/operations/dispatch.ts";
import type { OperationState } from "../domain/operations/store.ts";
import { toolLookup } from "./tools.ts";

export interface ReapReport {
  requeued: string[];
  unknown: string[];
}

/** Reaps every running operation whose lease ended before now. @returns the ids moved, by outcome. */
export async function reapExpiredLeases(ctx: AppContext): Promise<ReapReport> {
  const now = ctx.clock.now();
  const expired: Array<{ id: string; tool: string; attempts: number }> = await ctx
    .db("operations")
    .where({ state: "running" })
    .where("lease_expires_at", "<", now)
    .select("id", "tool", "attempts")
    .limit(100);
  const report: ReapReport = { requeued: [], unknown: [] };
  if (expired.length === 0) return report;
  const lookup = await toolLookup(ctx);
  for (const row of expired) {
    const resumable = lookup(row.tool)?.handler.resumable === true;
    const state: OperationState = resumable ? "queued" : "outcome_unknown";
    const n = await ctx
      .db("operations")
      .where({ id: row.id, state: "running", attempts: row.attempts })
      .where("lease_expires_at", "<", now)
      .update(
        resumable
          ? { state, lease_expires_at: null, updated_at: now }
          : {
              state,
              lease_expires_at: null,
              error_code: "outcome_unknown",
              error_message: "The worker running it stopped; inspect existing records before retrying.",
              finished_at: now,
              updated_at: now,
            },
      );
    if (n === 0) continue;
    if (resumable) {
      report.requeued.push(row.id);
      await dispatchOperation(ctx, row.id);
    } else report.unknown.push(row.id);
  }
  if (report.requeued.length + report.unknown.length > 0)
    ctx.log.warn(
      { requeued: report.requeued.length, unknown: report.unknown.length },
      "expired worker leases reaped",
    );
  return report;
}
