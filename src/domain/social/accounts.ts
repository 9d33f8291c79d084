// Stays whole: every read and write of social_accounts rows, so the one module that opens sealed tokens is the one that seals them.
/**
 * Connected social accounts (service spec 1.8, 1.11, 2.7). Tools only ever see the safe projection
 * (`SafeSocialAccount`): tokens and provider metadata are sealed with the application key and never selected
 * for a tool. Accounts are connected in the browser (/settings/social, src/web/social-settings.ts) or by the
 * operator (`admin social connect`), never by a tool (spec 1.9).
 *
 * Status: `connected`; `needs_reconnect` (the network refused the credentials: revoked, expired beyond
 * refresh; the settings page offers Reconnect); `disconnected` (the user disconnected it: tokens erased, the
 * row kept for the deliveries' history, hidden from tools). Older rows may say `expired` or `error`.
 */
import { isUuid } from "../../ids.ts";
import { randomUUID } from "node:crypto";
import { rowBinding, type SealedColumn, type Sealer } from "../../crypto/seal.ts";
import type { Knex } from "../../db/knex.ts";
import { pick } from "../../db/rows.ts";
import { notFound, notFoundAt, ToolError } from "../../errors.ts";
import type { NetworkAccount, TokenSet } from "../../providers/social/network.ts";
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
  return { social_account_id: row.id, ...pick(row, ["network", "display_name", "handle", "status"]) };
}

/** Lists the owner's accounts that are not disconnected (safe projection), ordered by network and name. */
export async function listSocialAccounts(
  db: Knex,
  owner: Owner,
  network?: Network,
): Promise<SafeSocialAccount[]> {
  const q = db("social_accounts")
    .select(SAFE_COLUMNS)
    .where(ownedBy(owner))
    .whereNot({ status: "disconnected" });
  if (network) q.where({ network });
  const rows = (await q
    .orderBy([{ column: "network" }, { column: "display_name" }, { column: "id" }])
    .limit(50)) as SafeRow[];
  return rows.map(project);
}

/**
 * Resolves destination account ids for publishing or scheduling. Every id must be the owner's; the short-video
 * network is refused (service spec 1.11, 7 rule 5) with the URL of the review page where the user finishes
 * TikTok posts (`reviewUrl`); an account that is not `connected` (expired, needs_reconnect, error) is refused
 * at the call, before any approval or delivery.
 * @throws ToolError not_found for an id the owner does not have; validation_failed for duplicates or tiktok;
 *   account_setup_required naming the accounts to reconnect.
 */
export async function resolveDestinations(
  db: Knex,
  owner: Owner,
  ids: readonly string[],
  reviewUrl = "/review",
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
        .whereNot({ status: "disconnected" })
        .whereIn("id", valid)) as SafeRow[])
    : [];
  const byId = new Map(rows.map((r) => [r.id, project(r)]));
  const out: SafeSocialAccount[] = [];
  for (const [i, id] of ids.entries()) {
    const account = byId.get(id);
    if (!account) throw notFoundAt("social account", `/social_account_ids/${i}`);
    out.push(account);
  }
  const tiktok = out.filter((a) => a.network === "tiktok");
  if (tiktok.length > 0) {
    throw new ToolError(
      "validation_failed",
      `publishing or scheduling to tiktok through a tool is not allowed: tiktok needs creator options and per-post consent in the service's own review page; remove the tiktok account and ask the user to finish that post at ${reviewUrl}`,
      {
        network: "tiktok",
        social_account_ids: tiktok.map((a) => a.social_account_id),
        review_url: reviewUrl,
      },
    );
  }
  const unusable = out.filter((a) => a.status !== "connected");
  if (unusable.length > 0) {
    throw new ToolError(
      "account_setup_required",
      `${unusable.map((a) => `the ${a.network} account "${a.display_name}" is ${a.status}`).join("; ")}: the user must reconnect it on /settings/social before publishing or scheduling to it`,
      {
        accounts: unusable.map((a) => ({ social_account_id: a.social_account_id, status: a.status })),
      },
      undefined,
      { actionPath: "/settings/social" },
    );
  }
  return out;
}

/** An account row with its tokens opened, for the engine and adapters only. Never returned to a tool. */
export interface OpenedAccount extends ProviderAccount {
  workspaceId: string;
  userId: string;
  mode: "live" | "sandbox";
  networkAccountId: string | null;
  tokens: TokenSet;
  settings: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** Opens an account's tokens. @throws ToolError not_found. */
export async function openAccount(db: Knex, sealer: Sealer, accountId: string): Promise<OpenedAccount> {
  const row = await db("social_accounts").where({ id: accountId }).first();
  if (!row) throw notFound("social account");
  return openAccountRow(sealer, row);
}

/** The `social_accounts` columns `openAccountRow` reads. */
export const OPENED_ACCOUNT_COLUMNS = [
  "id",
  "workspace_id",
  "user_id",
  "network",
  "handle",
  "status",
  "mode",
  "network_account_id",
  "access_token_sealed",
  "refresh_token_sealed",
  "token_expires_at",
  "refresh_expires_at",
  "scopes",
  "settings",
  "provider_metadata_sealed",
] as const;

/**
 * Opens the tokens of an account row read by the caller (at least `OPENED_ACCOUNT_COLUMNS`).
 * @throws Error when a sealed value does not open (src/crypto/seal.ts).
 */
export function openAccountRow(sealer: Sealer, row: Record<string, any>): OpenedAccount {
  const open = <T>(v: string | null, column: SealedColumn<"social_accounts">): T | undefined =>
    v ? sealer.open<T>(v, rowBinding("social_accounts", column, row.id)) : undefined;
  const accessToken = open<string>(row.access_token_sealed, "access_token_sealed");
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    network: row.network,
    handle: row.handle,
    status: row.status,
    mode: row.mode === "live" ? "live" : "sandbox",
    networkAccountId: row.network_account_id,
    accessToken,
    tokens: {
      accessToken: accessToken ?? "",
      refreshToken: open<string>(row.refresh_token_sealed, "refresh_token_sealed"),
      expiresAt: row.token_expires_at ?? undefined,
      refreshExpiresAt: row.refresh_expires_at ?? undefined,
      scopes: row.scopes ?? [],
    },
    settings: row.settings ?? {},
    metadata: open<Record<string, unknown>>(row.provider_metadata_sealed, "provider_metadata_sealed") ?? {},
  };
}

/**
 * The sealed token columns of account `id` for `tokens`; a missing refresh token keeps the stored one
 * (never lost).
 */
function tokenColumns(sealer: Sealer, id: string, tokens: TokenSet): Record<string, unknown> {
  return {
    access_token_sealed: sealer.seal(
      tokens.accessToken,
      rowBinding("social_accounts", "access_token_sealed", id),
    ),
    ...(tokens.refreshToken !== undefined
      ? {
          refresh_token_sealed: sealer.seal(
            tokens.refreshToken,
            rowBinding("social_accounts", "refresh_token_sealed", id),
          ),
        }
      : {}),
    token_expires_at: tokens.expiresAt ?? null,
    ...(tokens.refreshExpiresAt !== undefined ? { refresh_expires_at: tokens.refreshExpiresAt } : {}),
    scopes: JSON.stringify(tokens.scopes),
  };
}

/**
 * Records an account that came back from a network's consent (browser connect flow). Connecting the same
 * network account again (same workspace, network, `networkAccountId`) updates the existing row: new tokens,
 * status `connected`, and the refresh token kept when the network sent none. The account's `settings`
 * (defaults the network decided, e.g. the only Pinterest board) fill keys the row has no value for.
 * @returns the safe projection and whether a row was created.
 */
export async function upsertConnectedAccount(
  db: Knex,
  sealer: Sealer,
  owner: Owner,
  input: {
    network: Network;
    mode: "live" | "sandbox";
    account: NetworkAccount;
    /** The user tokens from the exchange; `account.tokens` (Facebook Page token) wins when present. */
    tokens: TokenSet;
    now: Date;
  },
): Promise<{ account: SafeSocialAccount; created: boolean }> {
  const tokens = input.account.tokens ?? input.tokens;
  const a = input.account;
  /** The row's values; sealed ones are bound to the row `id` (an existing row's or a new one's). */
  const values = (id: string) => ({
    display_name: (a.displayName ?? a.handle).slice(0, 120) || a.networkAccountId,
    handle: a.handle.slice(0, 200) || null,
    status: "connected",
    mode: input.mode,
    avatar_url: a.avatarUrl ?? null,
    capabilities: JSON.stringify(a.capabilities),
    provider_metadata_sealed: a.metadata
      ? sealer.seal(a.metadata, rowBinding("social_accounts", "provider_metadata_sealed", id))
      : null,
    last_error: null,
    connected_at: input.now,
    token_refreshed_at: input.now,
    updated_at: input.now,
    ...tokenColumns(sealer, id, tokens),
  });
  return db.transaction(async (trx) => {
    const existing = await trx("social_accounts")
      .where({
        workspace_id: owner.workspaceId,
        network: input.network,
        network_account_id: a.networkAccountId,
      })
      .forUpdate()
      .first("id");
    // Defaults the network decided at connect never overwrite a saved choice (jsonb `||`: right side wins).
    const defaults = JSON.stringify(a.settings ?? {});
    if (existing) {
      const [row] = (await trx("social_accounts")
        .where({ id: existing.id })
        .update({
          ...values(existing.id),
          user_id: owner.userId,
          settings: trx.raw("?::jsonb || settings", [defaults]),
        })
        .returning(SAFE_COLUMNS)) as SafeRow[];
      return { account: project(row!), created: false };
    }
    const id = randomUUID();
    const [row] = (await trx("social_accounts")
      .insert({
        ...values(id),
        id,
        settings: defaults,
        workspace_id: owner.workspaceId,
        user_id: owner.userId,
        network: input.network,
        network_account_id: a.networkAccountId,
      })
      .returning(SAFE_COLUMNS)) as SafeRow[];
    return { account: project(row!), created: true };
  });
}

/**
 * Saves refreshed tokens of a connected account (keeps the refresh token when the network sent none); an
 * account that is no longer `connected` (disconnected meanwhile) is left as it is. Called under the
 * per-account refresh lock (src/domain/social/refresh.ts `refreshAccountTokens`).
 */
export async function saveRefreshedTokens(
  db: Knex,
  sealer: Sealer,
  accountId: string,
  tokens: TokenSet,
  now: Date,
): Promise<void> {
  await db("social_accounts")
    .where({ id: accountId, status: "connected" })
    .update({
      ...tokenColumns(sealer, accountId, tokens),
      token_refreshed_at: now,
      updated_at: now,
      last_error: null,
    });
}

/**
 * Marks an account `needs_reconnect` with a safe reason (the network refused its credentials). Never called
 * for transient errors (5xx, timeouts).
 */
export async function markNeedsReconnect(
  db: Knex,
  accountId: string,
  reason: string,
  now: Date,
): Promise<void> {
  await db("social_accounts")
    .where({ id: accountId })
    .whereNot({ status: "disconnected" })
    .update({ status: "needs_reconnect", last_error: reason.slice(0, 500), updated_at: now });
}

/**
 * Disconnects one of the owner's accounts: erases its tokens and metadata, status `disconnected` (the row
 * stays for the history of its deliveries; reconnecting the same network account revives it).
 * @returns false when the owner has no such account.
 */
export async function disconnectAccount(
  db: Knex,
  owner: Owner,
  accountId: string,
  now: Date,
): Promise<boolean> {
  return updateOwnedAccount(db, owner, accountId, {
    status: "disconnected",
    access_token_sealed: null,
    refresh_token_sealed: null,
    provider_metadata_sealed: null,
    token_expires_at: null,
    refresh_expires_at: null,
    updated_at: now,
  });
}

/**
 * Per-account publishing defaults set on /settings/social (service spec 1.11: what a tool cannot express).
 * Only the keys in `allowed` are kept; values are short strings.
 */
export async function updateAccountSettings(
  db: Knex,
  owner: Owner,
  accountId: string,
  settings: Record<string, string>,
  now: Date,
): Promise<boolean> {
  return updateOwnedAccount(
    db,
    owner,
    accountId,
    { settings: JSON.stringify(settings), updated_at: now },
    { disconnected: true },
  );
}

/**
 * Writes `changes` to one of the owner's accounts; a disconnected one only when `options.disconnected`.
 * @returns false when the owner has no such account (a malformed id included).
 */
async function updateOwnedAccount(
  db: Knex,
  owner: Owner,
  accountId: string,
  changes: Record<string, unknown>,
  options: { disconnected?: boolean } = {},
): Promise<boolean> {
  if (!isUuid(accountId)) return false;
  const q = db("social_accounts").where(ownedBy(owner)).where({ id: accountId });
  if (!options.disconnected) q.whereNot({ status: "disconnected" });
  return (await q.update(changes)) > 0;
}

export interface ConnectAccount {
  network: string;
  displayName: string;
  handle?: string | undefined;
  /** Provider credentials; sealed before they are stored. */
  accessToken?: string | undefined;
  refreshToken?: string | undefined;
  providerMetadata?: Record<string, unknown> | undefined;
  /** live | sandbox (default sandbox). */
  mode?: "live" | "sandbox" | undefined;
  networkAccountId?: string | undefined;
  expiresAt?: Date | undefined;
  scopes?: string[] | undefined;
}

/**
 * Records a connected account for `owner` (operator command; the browser uses `upsertConnectedAccount`).
 * Credentials are sealed with `sealer`; without a sealer none may be given. A `networkAccountId` already
 * connected in the workspace updates that row.
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
  /** The row's values; sealed ones are bound to the row `id`. */
  const values = (id: string) => {
    const seal = (v: unknown, column: SealedColumn<"social_accounts">) =>
      v === undefined || !sealer ? null : sealer.seal(v, rowBinding("social_accounts", column, id));
    return {
      display_name: name,
      handle: input.handle?.trim() || null,
      status: "connected",
      mode: input.mode ?? "sandbox",
      access_token_sealed: seal(input.accessToken, "access_token_sealed"),
      refresh_token_sealed: seal(input.refreshToken, "refresh_token_sealed"),
      provider_metadata_sealed: seal(input.providerMetadata, "provider_metadata_sealed"),
      token_expires_at: input.expiresAt ?? null,
      scopes: JSON.stringify(input.scopes ?? []),
    };
  };
  if (input.networkAccountId) {
    const existing = await db("social_accounts")
      .where({
        workspace_id: owner.workspaceId,
        network: input.network,
        network_account_id: input.networkAccountId,
      })
      .first("id");
    if (existing) {
      const [row] = (await db("social_accounts")
        .where({ id: existing.id })
        .update({ ...values(existing.id), updated_at: db.fn.now() })
        .returning(SAFE_COLUMNS)) as SafeRow[];
      return project(row!);
    }
  }
  const id = randomUUID();
  const [row] = (await db("social_accounts")
    .insert({
      ...values(id),
      id,
      workspace_id: owner.workspaceId,
      user_id: owner.userId,
      network: input.network,
      network_account_id: input.networkAccountId ?? null,
    })
    .returning(SAFE_COLUMNS)) as SafeRow[];
  return project(row!);
}
