/**
 * The user's MCP connections as the settings pages show them (service spec 2.1, 4.4; docs/oauth.md): one
 * row per live OAuth grant that has had a token issued, or whose one-time authorization code is still
 * redeemable (the user just approved consent and the application has not finished connecting). A grant
 * whose code expired unredeemed can never be used and is not listed. Plain data, every text unescaped.
 */
import type { Knex } from "../../db/knex.ts";

export interface Connection {
  /** The grant id. */
  id: string;
  client_name: string | null;
  workspace_name: string;
  /** Space-separated granted scopes. */
  scope: string;
  created_at: Date;
  last_used_at: Date | null;
  /** False while the application has not redeemed its authorization code yet. */
  connected: boolean;
}

/** The live connections of `userId` at `now`, newest first. */
export async function listConnections(db: Knex, userId: string, now: Date): Promise<Connection[]> {
  return db("oauth_grants as g")
    .join("oauth_clients as c", "c.client_id", "g.client_id")
    .join("workspaces as w", "w.id", "g.workspace_id")
    .where("g.user_id", userId)
    .whereNull("g.revoked_at")
    .where((q) =>
      q
        .whereExists((t) => t.select(1).from("oauth_access_tokens as t").whereRaw("t.grant_id = g.id"))
        .orWhereExists((k) =>
          k
            .select(1)
            .from("oauth_authorization_codes as k")
            .whereRaw("k.grant_id = g.id")
            .whereNull("k.consumed_at")
            .where("k.expires_at", ">", now),
        ),
    )
    .orderBy("g.created_at", "desc")
    .select(
      "g.id",
      "c.client_name",
      "w.name as workspace_name",
      "g.scope",
      "g.created_at",
      "g.last_used_at",
      db.raw(
        "exists (select 1 from oauth_access_tokens t where t.grant_id = g.id) as connected",
      ) as unknown as string,
    );
}

/** The id of grant `grantId` when it belongs to `userId` (revoked or not), else undefined. */
export async function grantOfUser(db: Knex, userId: string, grantId: string): Promise<string | undefined> {
  const row = await db("oauth_grants").where({ id: grantId, user_id: userId }).first("id");
  return row?.id as string | undefined;
}

/** The registered name of OAuth client `clientId` (null when it gave none or is unknown). */
export async function clientName(db: Knex, clientId: string): Promise<string | null> {
  const row = await db("oauth_clients").where({ client_id: clientId }).first("client_name");
  return (row?.client_name as string | null | undefined) ?? null;
}
