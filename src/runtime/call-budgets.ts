/**
 * The pipeline's plan and budget steps (service spec 8; docs/security.md "Audit batches and budgets"): the
 * plan a tool needs, one unit of the user's budget per call (or the unit the admission statement consumed
 * ahead), and the unit a refused call still spends.
 */
import type { AppContext } from "../context.ts";
import { userPlan } from "../domain/account/accounts.ts";
import { planAtLeast } from "../domain/account/plans.ts";
import { ToolError } from "../errors.ts";
import { countRateLimited } from "../observability/metrics.ts";
import type { LimitVerdict } from "./rate-limit.ts";
import type { CallOptions, PrepaidBudget, Runtime } from "./runtime.ts";
import type { AuthContext, Budget, RegisteredTool } from "../tool-contract.ts";

/** @throws ToolError forbidden when the tool needs a higher plan than the user's (service spec 8). */
export async function checkPlan(ctx: AppContext, auth: AuthContext, tool: RegisteredTool): Promise<void> {
  if (!tool.plan) return;
  const plan = await userPlan(ctx.db, auth.userId);
  if (!planAtLeast(plan, tool.plan))
    throw new ToolError(
      "forbidden",
      `${tool.name} needs the ${tool.plan} plan; this account is on the ${plan} plan (the user can change it on /settings#billing)`,
      {
        required_plan: tool.plan,
        current_plan: plan,
      },
      undefined,
      { actionPath: "/settings#billing" },
    );
}

/**
 * Spends one unit of the user's `budget`, or uses the unit `prepaid` for this call when it is of that
 * budget. @returns the verdict. @throws the rate-limit store's error.
 */
export async function spendUnit(
  rt: Runtime,
  auth: AuthContext,
  budget: Budget,
  prepaid: PrepaidBudget | undefined,
): Promise<LimitVerdict> {
  if (prepaid && !prepaid.used && prepaid.budget === budget && prepaid.userId === auth.userId) {
    prepaid.used = true;
    return prepaid.verdict;
  }
  return rt.budgets[budget].consume(auth.userId);
}

/**
 * `spendUnit`, refusing the call when the budget is exhausted.
 * @throws ToolError rate_limited with `retry_after`.
 */
export async function consumeBudget(
  rt: Runtime,
  auth: AuthContext,
  budget: Budget,
  prepaid: PrepaidBudget | undefined,
): Promise<void> {
  const verdict = await spendUnit(rt, auth, budget, prepaid);
  if (!verdict.ok) {
    countRateLimited(budget);
    throw new ToolError(
      "rate_limited",
      `the ${budget} budget of this user is exhausted`,
      undefined,
      verdict.retryAfter,
    );
  }
}

/**
 * The unit a call refused before its budget step still spends (its answer stays the refusal, whatever
 * the verdict). A failing store is logged, not thrown: the call is refused anyway.
 */
export async function spendRefused(
  rt: Runtime,
  auth: AuthContext,
  budget: Budget,
  options: CallOptions,
  requestId: string,
): Promise<void> {
  try {
    await spendUnit(rt, auth, budget, options.prepaid);
  } catch (err) {
    rt.ctx.log.warn(
      { requestId, errName: (err as Error)?.name, errCode: (err as { code?: unknown })?.code },
      "budget unit of a refused call not counted",
    );
  }
}
