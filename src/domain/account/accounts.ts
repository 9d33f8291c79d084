/**
 * Users, workspaces and memberships. Passwords are argon2id hashes (RFC 9106) with the configured cost
 * (`Config.passwordHash`; default m=64 MiB, t=3, p=4). A stored hash carries its own parameters.
 */
import argon2 from "argon2";
import type { PasswordHashing } from "../../config/index.ts";
import type { Knex } from "../../db/knex.ts";
import { grantCredits } from "./credits.ts";
import { PLAN_QUOTAS, type Plan } from "./plans.ts";

/** The default cost (the argon2 package's defaults; PASSWORD_HASH_* settings, src/config/keys.ts). */
export const DEFAULT_PASSWORD_HASHING: PasswordHashing = { memoryCost: 65_536, timeCost: 3, parallelism: 4 };

/** An argon2id hash of `password` at `hashing`'s cost (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`). */
function hashPassword(password: string, hashing: PasswordHashing): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, ...hashing });
}

export class AccountError extends Error {
  override name = "AccountError";
}

export interface NewUser {
  email: string;
  password: string;
  workspace: string;
  plan?: Plan;
  displayName?: string;
}

/**
 * Creates a user with an argon2id password hash, a workspace they own, a subscription on `plan`
 * (default creator) and the plan's starting credits, in one transaction.
 * @param hashing the argon2id cost (`Config.passwordHash`; default DEFAULT_PASSWORD_HASHING).
 * @throws AccountError when the email is taken or a field is empty/too long.
 */
export async function createUser(
  db: Knex,
  input: NewUser,
  hashing: PasswordHashing = DEFAULT_PASSWORD_HASHING,
): Promise<{ user_id: string; workspace_id: string }> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254)
    throw new AccountError("email is not a valid address");
  if (input.password.length < 8 || input.password.length > 256)
    throw new AccountError("password must be 8 to 256 characters");
  const workspace = input.workspace.trim();
  if (!workspace || workspace.length > 120)
    throw new AccountError("workspace name must be 1 to 120 characters");
  const plan = input.plan ?? "creator";
  const passwordHash = await hashPassword(input.password, hashing);
  return db.transaction(async (trx) => {
    const exists = await trx("users").whereRaw("lower(email) = lower(?)", [email]).first();
    if (exists) throw new AccountError("a user with this email already exists");
    const [user] = await trx("users")
      .insert({ email, password_hash: passwordHash, display_name: input.displayName ?? email.split("@")[0] })
      .returning("id");
    const [ws] = await trx("workspaces").insert({ name: workspace, owner_user_id: user.id }).returning("id");
    await trx("memberships").insert({ workspace_id: ws.id, user_id: user.id, role: "owner" });
    await trx("subscriptions").insert({ user_id: user.id, plan });
    await grantCredits(trx, user.id, PLAN_QUOTAS[plan].startingCredits, "grant:signup");
    return { user_id: user.id as string, workspace_id: ws.id as string };
  });
}

/**
 * Adds `email`'s user to a workspace as a member (idempotent).
 * @throws AccountError when the user or workspace does not exist.
 */
export async function addMember(
  db: Knex,
  workspaceId: string,
  email: string,
  role: "member" | "owner" = "member",
) {
  const user = await db("users").whereRaw("lower(email) = lower(?)", [email]).first();
  if (!user) throw new AccountError(`no user with email ${email}`);
  const ws = await db("workspaces").where({ id: workspaceId }).first();
  if (!ws) throw new AccountError(`no workspace ${workspaceId}`);
  await db("memberships")
    .insert({ workspace_id: workspaceId, user_id: user.id, role })
    .onConflict(["workspace_id", "user_id"])
    .ignore();
  return { user_id: user.id as string, workspace_id: workspaceId };
}

/**
 * Verifies an email/password pair against the stored hash (at the cost it was made with). Returns the user id,
 * or undefined (always the same generic failure).
 * @param hashing the configured cost (`Config.passwordHash`): an unknown email spends one hash at it, so that
 *   it is not told apart from a wrong password by timing.
 */
export async function verifyPassword(
  db: Knex,
  email: string,
  password: string,
  hashing: PasswordHashing = DEFAULT_PASSWORD_HASHING,
): Promise<string | undefined> {
  const user = await db("users").whereRaw("lower(email) = lower(?)", [email.trim()]).first();
  if (!user || user.status !== "active") {
    await hashPassword(password, hashing);
    return undefined;
  }
  return (await argon2.verify(user.password_hash, password)) ? (user.id as string) : undefined;
}

/** The user's plan (creator when no subscription row exists). */
export async function userPlan(db: Knex, userId: string): Promise<Plan> {
  const row = await db("subscriptions").where({ user_id: userId, status: "active" }).first();
  return (row?.plan as Plan | undefined) ?? "creator";
}
