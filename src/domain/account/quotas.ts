/**
 * Live plan quotas (service spec 8): owned workspaces and automation slots. Automation slots are shared
 * account-wide, across every workspace of the user and across video and carousel definitions, including
 * drafts; deleted automations free their slot. `allowed` is null when the plan is unlimited.
 */
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { userPlan } from "./accounts.ts";
import { PLAN_QUOTAS } from "./plans.ts";

export interface Quota {
  used: number;
  /** null = unlimited. */
  allowed: number | null;
}

/** Automation slots of `userId`: every non-deleted automation the user created, in any workspace. */
export async function automationSlots(db: Knex, userId: string): Promise<Quota> {
  const plan = await userPlan(db, userId);
  const row = await db("automations")
    .where({ user_id: userId })
    .whereNull("deleted_at")
    .count({ n: "*" })
    .first();
  return { used: Number(row?.n ?? 0), allowed: PLAN_QUOTAS[plan].automations };
}

/** Workspaces `userId` owns. */
export async function ownedWorkspaces(db: Knex, userId: string): Promise<Quota> {
  const plan = await userPlan(db, userId);
  const row = await db("workspaces").where({ owner_user_id: userId }).count({ n: "*" }).first();
  return { used: Number(row?.n ?? 0), allowed: PLAN_QUOTAS[plan].ownedWorkspaces };
}

/** True when one more unit fits in `quota`. */
export function hasRoom(quota: Quota, more = 1): boolean {
  return quota.allowed === null || quota.used + more <= quota.allowed;
}

/**
 * Refuses a new automation when the account has no free slot. Call inside the creating transaction,
 * after locking the user row (`select ... for update`) so that concurrent creations cannot both pass.
 * @throws ToolError `forbidden` with `{used, allowed}` details.
 */
export async function assertAutomationSlot(db: Knex, userId: string): Promise<void> {
  await db.raw("select id from users where id = ? for update", [userId]);
  const quota = await automationSlots(db, userId);
  if (!hasRoom(quota)) {
    throw new ToolError(
      "forbidden",
      `the plan allows ${quota.allowed} automations and ${quota.used} are in use; delete one or upgrade the plan`,
      { quota: "automations", ...quota },
    );
  }
}

/**
 * Refuses a new owned workspace when the plan's limit is reached.
 * @throws ToolError `forbidden` with `{used, allowed}` details.
 */
export async function assertWorkspaceSlot(db: Knex, userId: string): Promise<void> {
  await db.raw("select id from users where id = ? for update", [userId]);
  const quota = await ownedWorkspaces(db, userId);
  if (!hasRoom(quota)) {
    throw new ToolError(
      "forbidden",
      `the ${await userPlan(db, userId)} plan allows ${quota.allowed} owned workspaces and ${quota.used} exist; delete one or upgrade the plan`,
      {
        quota: "owned_workspaces",
        ...quota,
      },
    );
  }
}
