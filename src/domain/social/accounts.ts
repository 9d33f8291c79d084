/**
 * Connected social accounts (service spec 1.8, 1.11, 2.7). Tools only ever see the safe projection
 * (`SafeSocialAccount`): tokens and provider metadata are sealed with the application key and never selected
 * for a tool. Accounts are connected in the browser or by the operator (`admin social connect`), never by a tool.
 */
import { isUuid } from "../../ids.ts";
import type { Sealer } from "../../crypto/seal.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import { isNetwork, type Network, NETWORKS, type ProviderAccount } from "../../providers/social/types.ts";
import { type Owner, ownedBy } from "../owner.ts";

/**
 * Connection states of a social account: `connected` (usable), `expired` (the network's token expired),
 * `needs_reconnect` (the network revoked access or asks for new permissions), `error` (the last provider
 * call failed). Only `connected` accounts are publishing or scheduling destinations; the others must be
 * reconnected in the browser first (service spec 7 `account_setup_required`).
 */
export const SOCIAL_ACCOUNT_STATUSES = ["connected", "expired", "needs_reconnect", "error"] as const;
export type SocialAccountStatus = (typeof SOCIAL_ACCOUNT_STATUSES)[number];

/** The only account fields a tool may return. */
export interface SafeSocialAccount {
  social_account_id: string;
  network: Network;
  display_name: string;
  handle: string | null;
  status: SocialAccountStatus;
}

/** The columns of the safe projection; sealed columns are deliberately absent. */
const SAFE_COLUMNS = ["id", "network", "display_name", "handle", "status"] as const;

type SafeRow = {
  id: string;
  network: Network;
  display_name: string;
  handle: string | null;
  status: SocialAccountStatus;
};

function project(row: SafeRow): SafeSocialAccount {
  return {
    social_account_id: row.id,
    network: row.network,
    display_name: row.display_name,
    handle: row.handle,
    status: row.status,
  };
}

/** Lists the owner's connected accounts (safe projection), optionally of one network, ordered by network and name. */
export async function listSocialAccounts(
  db: Knex,
  owner: Owner,
  network?: Network,
): Promise<SafeSocialAccount[]> {
  const q = db("social_accounts").select(SAFE_COLUMNS).where(ownedBy(owner));
  if (network) q.where({ network });
  const rows = (await q
    .orderBy([{ column: "network" }, { column: "display_name" }, { column: "id" }])
    .limit(50)) as SafeRow[];
  return rows.map(project);
}

/**
 * Resolves destination account ids for publishing or scheduling. Every id must be the owner's; the short-video
 * network is refused (service spec 1.11, 7 rule 5); an account that is not `connected` (expired,
 * needs_reconnect, error) is refused at the call, before any approval or delivery.
 * @throws ToolError not_found for an id the owner does not have; validation_failed for duplicates or tiktok;
 *   account_setup_required naming the accounts to reconnect.
 */
export async function resolveDestinations(
  db: Knex,
  owner: Owner,
  ids: readonly string[],
): Promise<SafeSocialAccount[]> {
  if (new Set(ids).size !== ids.length) {
    throw ToolError.validation("social_account_ids must not repeat an account", {
      path: "/social_account_ids",
      keyword: "uniqueItems",
      rule: "must not have duplicate items",
    });
  }
  const valid = ids.filter(isUuid);
  const rows = valid.length
    ? ((await db("social_accounts")
        .select(SAFE_COLUMNS)
        .where(ownedBy(owner))
        .whereIn("id", valid)) as SafeRow[])
    : [];
  const byId = new Map(rows.map((r) => [r.id, project(r)]));
  const out: SafeSocialAccount[] = [];
  for (const id of ids) {
    const account = byId.get(id);
    if (!account) throw notFound("social account");
    out.push(account);
  }
  const tiktok = out.filter((a) => a.network === "tiktok");
  if (tiktok.length > 0) {
    throw new ToolError(
      "validation_failed",
      "publishing or scheduling to tiktok through a tool is not allowed: tiktok needs creator options and per-post consent in the service's own review UI; remove the tiktok account and finish that post in the browser",
      { network: "tiktok", social_account_ids: tiktok.map((a) => a.social_account_id) },
    );
  }
  const unusable = out.filter((a) => a.status !== "connected");
  if (unusable.length > 0) {
    throw new ToolError(
      "account_setup_required",
      `${unusable.map((a) => `the ${a.network} account "${a.display_name}" is ${a.status}`).join("; ")}: the user must reconnect it in the browser settings before publishing or scheduling to it`,
      {
        accounts: unusable.map((a) => ({ social_account_id: a.social_account_id, status: a.status })),
      },
    );
  }
  return out;
}

/** The provider's view of an account, with its access token opened. Never returned to a tool. */
export async function providerAccount(db: Knex, sealer: Sealer, accountId: string): Promise<ProviderAccount> {
  const row = await db("social_accounts").where({ id: accountId }).first();
  if (!row) throw notFound("social account");
  return {
    id: row.id,
    network: row.network,
    handle: row.handle,
    status: row.status,
    accessToken: row.access_token_sealed ? sealer.open<string>(row.access_token_sealed) : undefined,
  };
}

export interface ConnectAccount {
  network: string;
  displayName: string;
  handle?: string | undefined;
  /** Provider credentials; sealed before they are stored. */
  accessToken?: string | undefined;
  refreshToken?: string | undefined;
  providerMetadata?: Record<string, unknown> | undefined;
}

/**
 * Records a connected account for `owner` (operator command and browser connect flow; never a tool).
 * Credentials are sealed with `sealer`; without a sealer none may be given.
 * @throws Error for an unknown network, an empty name, or credentials without a sealer.
 */
export async function connectSocialAccount(
  db: Knex,
  sealer: Sealer | undefined,
  owner: Owner,
  input: ConnectAccount,
): Promise<SafeSocialAccount> {
  if (!isNetwork(input.network)) throw new Error(`network must be one of ${NETWORKS.join(", ")}`);
  const name = input.displayName.trim();
  if (!name || name.length > 120) throw new Error("display name must be 1 to 120 characters");
  const secrets = [input.accessToken, input.refreshToken, input.providerMetadata].some(
    (v) => v !== undefined,
  );
  if (secrets && !sealer) throw new Error("credentials can only be stored sealed");
  const seal = (v: unknown) => (v === undefined || !sealer ? null : sealer.seal(v));
  const [row] = (await db("social_accounts")
    .insert({
      workspace_id: owner.workspaceId,
      user_id: owner.userId,
      network: input.network,
      display_name: name,
      handle: input.handle?.trim() || null,
      status: "connected",
      access_token_sealed: seal(input.accessToken),
      refresh_token_sealed: seal(input.refreshToken),
      provider_metadata_sealed: seal(input.providerMetadata),
    })
    .returning(SAFE_COLUMNS)) as SafeRow[];
  return project(row!);
}
