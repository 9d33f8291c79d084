/**
 * get_account_settings: the plan with live quotas (service spec 8 "Plan quotas"): owned workspaces and
 * automation slots used/allowed (`allowed` null = unlimited; slots are shared account-wide by every
 * non-deleted automation of the user, drafts included), the per-user-per-minute budgets and credit prices.
 */
import { userPlan } from "../../domain/account/accounts.ts";
import { PLAN_QUOTAS } from "../../domain/account/plans.ts";
import { PRICES } from "../../domain/account/prices.ts";
import type { ToolHandlers } from "../../../generated/tool-types.ts";

export const handler: ToolHandlers["get_account_settings"] = {
  async execute(_input, { db, auth, app }) {
    const [plan, workspaces, automations] = await Promise.all([
      userPlan(db, auth.userId),
      db("workspaces").where({ owner_user_id: auth.userId }).count({ n: "*" }).first(),
      db("automations").where({ user_id: auth.userId }).whereNull("deleted_at").count({ n: "*" }).first(),
    ]);
    const quota = PLAN_QUOTAS[plan];
    const b = app.config.budgets;
    return {
      data: {
        plan,
        quotas: {
          owned_workspaces: { used: Number(workspaces?.n ?? 0), allowed: quota.ownedWorkspaces },
          automations: { used: Number(automations?.n ?? 0), allowed: quota.automations },
        },
        rate_limits: { read: b.read, write: b.write, ai: b.ai, approval: b.approval, delete: b.delete },
        credit_prices: {
          generated_image: PRICES.generated_image,
          grid_video: PRICES.grid_video,
          fade_video: PRICES.fade_video,
          ugc_video: PRICES.ugc_video,
        },
      },
    };
  },
};
