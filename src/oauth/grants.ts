/**
 * Connections (grants, service spec 2.1 and 3.2): creation at consent, revocation (by the owner in the
 * settings, by RFC 7009 revocation, or on code reuse / refresh-token theft), and the owner's list.
 */
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";

/** Why a grant was revoked (stored in `revoked_reason`; internal, never on the wire). */
export type RevokeReason = "user" | "token_revocation" | "code_reuse" | "refresh_reuse" | "code_misuse";

/**
 * Revokes a grant and everything issued under it, in one transaction: the grant, its access tokens and
 * refresh tokens get `revoked_at`, its unused codes are consumed. Idempotent. Work already started is
 * not undone (service spec 3.2).
 * @returns true when the grant was active before this call.
 */
export async function revokeGrant(
  ctx: AppContext,
  grantId: string,
  reason: RevokeReason,
  db: Knex | Knex.Transaction = ctx.db,
): Promise<boolean> {
  const now = ctx.clock.now();
  const run = async (trx: Knex.Transaction) => {
    const changed = await trx("oauth_grants")
      .where({ id: grantId })
      .whereNull("revoked_at")
      .update({ revoked_at: now, revoked_reason: reason });
    await trx("oauth_access_tokens")
      .where({ grant_id: grantId })
      .whereNull("revoked_at")
      .update({ revoked_at: now });
    await trx("oauth_refresh_tokens")
      .where({ grant_id: grantId })
      .whereNull("revoked_at")
      .update({ revoked_at: now });
    await trx("oauth_authorization_codes")
      .where({ grant_id: grantId })
      .whereNull("consumed_at")
      .update({ consumed_at: now });
    return changed > 0;
  };
  const isTrx = (db as { isTransaction?: boolean }).isTransaction === true;
  const revoked = isTrx ? await run(db as Knex.Transaction) : await ctx.db.transaction(run);
  if (revoked) ctx.log.info({ grant_id: grantId, reason }, "grant revoked");
  return revoked;
}

/**
 * True when `userId` is a member of `workspaceId` and both the user and the workspace are active (service
 * spec 5.8 "account status"; a suspended or removed workspace refuses its tokens like a suspended user).
 */
export async function isActiveMember(
  db: Knex | Knex.Transaction,
  userId: string,
  workspaceId: string,
): Promise<boolean> {
  const row = await db("memberships as m")
    .join("users as u", "u.id", "m.user_id")
    .join("workspaces as w", "w.id", "m.workspace_id")
    .where({
      "m.user_id": userId,
      "m.workspace_id": workspaceId,
      "u.status": "active",
      "w.status": "active",
    })
    .first("m.user_id");
  return Boolean(row);
}

/**
 * The active workspaces `userId` belongs to, by name: `{id, name}` (the consent page offers only these; a
 * suspended or removed workspace cannot be connected).
 */
export async function userWorkspaces(db: Knex, userId: string): Promise<Array<{ id: string; name: string }>> {
  return db("memberships as m")
    .join("workspaces as w", "w.id", "m.workspace_id")
    .where({ "m.user_id": userId, "w.status": "active" })
    .orderBy([{ column: "w.name" }, { column: "w.id" }])
    .select("w.id", "w.name");
}
