/**
 * Creating additional owned workspaces (service spec 8 "Plan quotas": Creator owns at most 2, Growth and Pro
 * are unlimited). The user's first workspace is created with the user (src/domain/account/accounts.ts).
 */
import type { Knex } from "../../db/knex.ts";
import { AccountError } from "./accounts.ts";
import { assertWorkspaceSlot } from "./quotas.ts";

/**
 * Creates a workspace owned by `ownerUserId` with its owner membership, after checking the plan's owned
 * workspace quota under the user's row lock (two concurrent creations cannot both pass).
 * @param name 1 to 120 characters (trimmed).
 * @returns the new workspace id.
 * @throws AccountError for an unknown user or a bad name; ToolError `forbidden` with
 *   `{quota: "owned_workspaces", used, allowed}` when the plan's limit is reached (nothing is written).
 */
export async function createWorkspace(
  db: Knex,
  ownerUserId: string,
  name: string,
): Promise<{ workspace_id: string }> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 120) throw new AccountError("workspace name must be 1 to 120 characters");
  return db.transaction(async (trx) => {
    const user = await trx("users").where({ id: ownerUserId }).first("id");
    if (!user) throw new AccountError(`no user ${ownerUserId}`);
    await assertWorkspaceSlot(trx, ownerUserId);
    const [ws] = await trx("workspaces")
      .insert({ name: trimmed, owner_user_id: ownerUserId })
      .returning("id");
    await trx("memberships").insert({ workspace_id: ws.id, user_id: ownerUserId, role: "owner" });
    return { workspace_id: ws.id as string };
  });
}
