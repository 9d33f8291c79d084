/**
 * The runtime the tool pipeline runs on (./pipeline.ts): the tools by name and the per-user budgets, built once
 * per process, and the options and outcome of one call.
 */
import type { AppContext } from "../context.ts";
import { createLimiter, type Limiter, type LimitVerdict } from "./rate-limit.ts";
import type { Budget, Envelope, RegisteredTool, ToolContext } from "../tool-contract.ts";

/** What the pipeline needs, built once per process (validators are compiled in the registry). */
export interface Runtime {
  ctx: AppContext;
  tools: ReadonlyMap<string, RegisteredTool>;
  /** Per-user-per-minute limiters by budget (service spec 8), shared across clients and instances. */
  budgets: Record<Budget, Limiter>;
}

/** Builds the runtime over `tools` (the generated registry in production, small fixtures in tests). */
export function createRuntime(ctx: AppContext, tools: readonly RegisteredTool[]): Runtime {
  const b = ctx.config.budgets;
  return {
    ctx,
    tools: new Map(tools.map((t) => [t.name, t])),
    budgets: {
      read: createLimiter(ctx, "budget:read", b.read),
      write: createLimiter(ctx, "budget:write", b.write),
      ai: createLimiter(ctx, "budget:ai", b.ai),
      approval: createLimiter(ctx, "budget:approval", b.approval),
      delete: createLimiter(ctx, "budget:delete", b.delete),
    },
  };
}

export type CallOutcome =
  | { kind: "unknown_tool" }
  | { kind: "insufficient_scope"; scopes: string[] }
  | { kind: "result"; envelope: Envelope; isError: boolean };

export interface CallOptions {
  /**
   * The call's request id (the envelope's `request_id`, audit rows, logs): the HTTP request's id when the
   * call came over /mcp (its access log line has the same), a new uuid when omitted.
   */
  requestId?: string | undefined;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Progress sink (SSE when the client asked for it). */
  progress: ToolContext["progress"];
  /** A unit of the caller's budget already consumed for this call (`PrepaidBudget`), used by the pipeline. */
  prepaid?: PrepaidBudget | undefined;
}

/**
 * One unit of a user's budget consumed before the call reached the pipeline (by the /mcp admission
 * statement, src/mcp/admission.ts, in the same round trip as the token check). The pipeline uses its
 * verdict instead of consuming again and sets `used` (every call of a known tool that reaches the pipeline
 * spends its unit, also one refused for its scope or arguments); a request that never reaches it (refused
 * token, protocol error) leaves it unused and `release` gives the unit back before it is answered
 * (callTool does so before it returns).
 */
export interface PrepaidBudget {
  budget: Budget;
  /** The user whose budget was consumed (the token's `sub`). */
  userId: string;
  verdict: LimitVerdict;
  used: boolean;
  /** Gives the unit back unless `used` (once; later calls do nothing). Never throws. */
  release(): Promise<void>;
}

/**
 * The budget a call of `name` consumes right after its in-memory checks (scope, arguments): a known tool
 * that is not a write (no idempotency lookup before the budget) and needs no plan (no plan lookup before
 * it). Such a call's budget can be consumed ahead, in the admission statement.
 * @returns the budget's limiter, or undefined when the call's budget must be consumed by the pipeline.
 */
export function prepayableBudget(
  rt: Runtime,
  name: unknown,
): { budget: Budget; limiter: Limiter } | undefined {
  const tool = typeof name === "string" ? rt.tools.get(name) : undefined;
  if (!tool || tool.access === "write" || tool.plan) return undefined;
  return { budget: tool.budget, limiter: rt.budgets[tool.budget] };
}
