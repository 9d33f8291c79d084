/**
 * Reaping expired worker leases (docs/operations.md "Leases"; service spec 3.1 "worker stopped", rule 4). A
 * running operation whose lease ran out lost its worker: it becomes `outcome_unknown` at once and is never
 * run again (recovery never replays a handler already marked running). Carousel renders are not operations:
 * they run as their own jobs under their own leases and are resumed from their checkpoints
 * (src/operations/render.ts `reapExpiredRenders`). Each row is moved by one conditional UPDATE, so
 * concurrent reapers on several workers never both take it.
 */
import type { AppContext } from "../context.ts";
import { countOperation } from "../observability/metrics.ts";

export interface ReapReport {
  unknown: string[];
}

/** Reaps every running operation whose lease ended before now. @returns the ids moved to outcome_unknown. */
export async function reapExpiredLeases(ctx: AppContext): Promise<ReapReport> {
  const now = ctx.clock.now();
  const expired: Array<{ id: string; attempts: number; tool: string }> = await ctx
    .db("operations")
    .where({ state: "running" })
    .where("lease_expires_at", "<", now)
    .select("id", "attempts", "tool")
    .limit(100);
  const report: ReapReport = { unknown: [] };
  for (const row of expired) {
    const n = await ctx
      .db("operations")
      .where({ id: row.id, state: "running", attempts: row.attempts })
      .where("lease_expires_at", "<", now)
      .update({
        state: "outcome_unknown",
        lease_expires_at: null,
        error_code: "outcome_unknown",
        error_message: "The worker running it stopped; inspect existing records before retrying.",
        finished_at: now,
        updated_at: now,
      });
    if (n > 0) {
      report.unknown.push(row.id);
      countOperation(row.tool, "outcome_unknown");
    }
  }
  if (report.unknown.length > 0)
    ctx.log.warn({ unknown: report.unknown.length }, "expired worker leases reaped: outcome unknown");
  return report;
}
