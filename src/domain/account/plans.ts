/**
 * Plans and their quotas (service spec 8). `null` means unlimited.
 */
export const PLANS = ["creator", "growth", "pro"] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanQuota {
  /** Workspaces the user may own. */
  ownedWorkspaces: number | null;
  /** Automation slots, shared account-wide across video and carousel definitions and drafts. */
  automations: number | null;
  /** Credits granted when the account is created. */
  startingCredits: number;
}

export const PLAN_QUOTAS: Record<Plan, PlanQuota> = {
  creator: { ownedWorkspaces: 2, automations: 2, startingCredits: 100 },
  growth: { ownedWorkspaces: null, automations: 6, startingCredits: 300 },
  pro: { ownedWorkspaces: null, automations: null, startingCredits: 1000 },
};

/** Plan order for minimum-plan checks: creator < growth < pro. */
export function planAtLeast(plan: Plan, minimum: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(minimum);
}

export function isPlan(v: unknown): v is Plan {
  return typeof v === "string" && (PLANS as readonly string[]).includes(v);
}
