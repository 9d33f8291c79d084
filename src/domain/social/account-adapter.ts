/**
 * A connected account with its network adapter and fresh tokens, for the work done on a post after it was
 * published (its first comment, ./first-comment.ts; its removal, ./removal.ts). Tokens about to expire are
 * refreshed first, under the account's refresh lock (./refresh.ts), as the delivery engine does.
 */
import type { AppContext } from "../../context.ts";
import {
  type AdapterAccount,
  NetworkAuthError,
  type NetworkAdapter,
} from "../../providers/social/network.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import { type OpenedAccount, openAccount } from "./accounts.ts";
import { adapterAccount } from "./account-settings.ts";
import { refreshAccountTokens } from "./refresh.ts";

/** Refresh an access token that expires within this many seconds before using it. */
const EXPIRY_MARGIN_SECONDS = 60;

export type ReadyAccount =
  | {
      ok: true;
      account: OpenedAccount;
      adapter: NetworkAdapter;
      adapterAccount: AdapterAccount;
      label: string;
    }
  /** Why the account cannot be used now (safe text naming the account and what to do). */
  | { ok: false; reason: string };

/**
 * Opens account `accountId`, picks its adapter and refreshes its tokens when they expire within a minute.
 * @returns the account ready to call its network, or why not (gone, not connected, refresh refused).
 * @throws the refresh's transient errors (the caller tries again later).
 */
export async function readyAccount(app: AppContext, accountId: string): Promise<ReadyAccount> {
  let account: OpenedAccount;
  try {
    account = await openAccount(app.db, app.sealer, accountId);
  } catch {
    return { ok: false, reason: "the account no longer exists" };
  }
  const label = `${NETWORK_RULES[account.network].label} account ${account.handle ? `@${account.handle}` : account.id}`;
  if (account.status !== "connected")
    return { ok: false, reason: `the ${label} is ${account.status}: reconnect it on /settings/social` };
  const adapter = app.providers.networks.forAccount(account.network, account.mode);
  const exp = account.tokens.expiresAt;
  if (exp && exp.getTime() - app.clock.now().getTime() < EXPIRY_MARGIN_SECONDS * 1000) {
    try {
      const outcome = await refreshAccountTokens(app, account.id, adapter, EXPIRY_MARGIN_SECONDS);
      if (outcome.kind === "not_connected") return { ok: false, reason: `the ${label} is not connected` };
      account.tokens = outcome.tokens;
    } catch (err) {
      if (err instanceof NetworkAuthError)
        return { ok: false, reason: `the ${label} needs to be reconnected on /settings/social` };
      throw err;
    }
  }
  return { ok: true, account, adapter, adapterAccount: adapterAccount(account), label };
}

/**
 * The scopes of `needed` that the account's known grant lacks ([] when every one is granted, or when the
 * grant is unknown, `[]`: then the network decides).
 */
export function missingScopes(account: AdapterAccount, needed: readonly string[]): string[] {
  const granted = account.tokens.scopes;
  if (granted.length === 0) return [];
  return needed.filter((s) => !granted.includes(s));
}
