/**
 * What the account settings page shows of a user (service spec 8 "Plan quotas", 1.8 social accounts):
 * email, plan, credit balance, owned-workspace quota and the workspaces the user belongs to with their
 * connected social accounts (the safe projection only: no token ever leaves the domain). Plain data.
 */
import type { Knex } from "../../db/knex.ts";
import { listSocialAccounts, type SafeSocialAccount } from "../social/accounts.ts";
import { userPlan } from "./accounts.ts";
import { creditBalance } from "./credits.ts";
import type { Plan } from "./plans.ts";
import { ownedWorkspaces, type Quota } from "./quotas.ts";

export interface MemberWorkspace {
  id: string;
  name: string;
  /** `owner` or `member` (memberships.role). */
  role: string;
  /** `active`, `suspended` or `removed` (workspaces.status, src/domain/account/suspension.ts). */
  status: string;
}

export interface AccountOverview {
  email: string;
  plan: Plan;
  /** Credits left (whole credits). */
  credits: number;
  ownedWorkspaces: Quota;
  workspaces: Array<MemberWorkspace & { socialAccounts: SafeSocialAccount[] }>;
}

/** The workspaces `userId` is a member of, owned ones first, then by creation. */
export async function workspacesOfUser(db: Knex, userId: string): Promise<MemberWorkspace[]> {
  return db("memberships as m")
    .join("workspaces as w", "w.id", "m.workspace_id")
    .where("m.user_id", userId)
    .orderByRaw("case when w.owner_user_id = ? then 0 else 1 end, w.created_at, w.id", [userId])
    .select("w.id", "w.name", "m.role", "w.status");
}

/** The email of `userId` ("" when the user is gone). */
export async function userEmail(db: Knex, userId: string): Promise<string> {
  const row = await db("users").where({ id: userId }).first("email");
  return (row?.email as string | undefined) ?? "";
}

/** Everything the account settings page shows of `userId`. */
export async function accountOverview(db: Knex, userId: string): Promise<AccountOverview> {
  const [email, plan, credits, owned, workspaces] = await Promise.all([
    userEmail(db, userId),
    userPlan(db, userId),
    creditBalance(db, userId),
    ownedWorkspaces(db, userId),
    workspacesOfUser(db, userId),
  ]);
  const withAccounts = await Promise.all(
    workspaces.map(async (w) => ({
      ...w,
      socialAccounts: await listSocialAccounts(db, { userId, workspaceId: w.id }),
    })),
  );
  return { email, plan, credits, ownedWorkspaces: owned, workspaces: withAccounts };
}
