/**
 * Token refresh before expiry (service spec 1.8; Instagram long-lived token refresh, TikTok's 24 h access
 * token): every connected account whose access token expires within its network's `refreshAheadSeconds`
 * (src/providers/social/network.ts, default 1 h) is refreshed through its adapter. A refusal the adapter
 * recognises as an auth error (`NetworkAuthError`: revoked, expired beyond refresh) sets the account
 * `needs_reconnect`; any other failure (5xx, timeout) leaves the account connected and is tried again on the
 * next pass.
 *
 * Every refresh of an account's tokens, on every path (this pass, the delivery engine before a step, the
 * TikTok review page before creator_info), goes through `refreshAccountTokens`: one per-account lock (the
 * account row `FOR UPDATE`, held across the network call), so a network that rotates refresh tokens (X,
 * TikTok, Pinterest) never sees the same refresh token twice, and a disconnect waits for the refresh and
 * then erases what it saved; an account that is no longer connected is never written.
 */
import type { AppContext } from "../../context.ts";
import { type NetworkAdapter, NetworkAuthError, type TokenSet } from "../../providers/social/network.ts";
import type { Network } from "../../providers/social/types.ts";
import { markNeedsReconnect, openAccount, saveRefreshedTokens } from "./accounts.ts";

/** What `refreshAccountTokens` did. */
export type RefreshOutcome =
  /** The network was asked and the new tokens saved. */
  | { kind: "refreshed"; tokens: TokenSet }
  /** Another refresher saved tokens that are still fresh enough: they are returned, the network not asked. */
  | { kind: "current"; tokens: TokenSet }
  /** The account is no longer connected (disconnected, needs reconnection, gone): nothing was written. */
  | { kind: "not_connected" };

/**
 * Refreshes account `accountId`'s tokens under its per-account lock, when, read under the lock, they expire
 * within `dueWithinSeconds` (or have no expiry): the tokens are re-read after the lock is taken, so a caller
 * that read them before another refresher rotated them uses the rotated ones. The new tokens are saved in
 * the same transaction (the refresh token kept when the network sent none).
 * With `rejectedAccessToken` (an access token the network just refused with 401), the tokens are refreshed
 * whatever their expiry while that token is still the saved one; when another refresher already replaced
 * it, the saved tokens are returned (`current`) and the network is not asked.
 * @returns what happened (see RefreshOutcome).
 * @throws the adapter's error (NetworkAuthError: the caller marks the account; transient errors: retried
 *   later); nothing is saved then.
 */
export async function refreshAccountTokens(
  app: AppContext,
  accountId: string,
  adapter: NetworkAdapter,
  dueWithinSeconds: number,
  rejectedAccessToken?: string,
): Promise<RefreshOutcome> {
  return app.db.transaction(async (trx) => {
    const locked = await trx("social_accounts").where({ id: accountId }).forUpdate().first("status");
    if (locked?.status !== "connected") return { kind: "not_connected" };
    const account = await openAccount(trx, app.sealer, accountId);
    const exp = account.tokens.expiresAt;
    if (rejectedAccessToken !== undefined) {
      if (account.tokens.accessToken !== rejectedAccessToken)
        return { kind: "current", tokens: account.tokens };
    } else if (exp && exp.getTime() - app.clock.now().getTime() > dueWithinSeconds * 1000)
      return { kind: "current", tokens: account.tokens };
    const fresh = await adapter.oauth.refresh(account.tokens);
    await saveRefreshedTokens(trx, app.sealer, accountId, fresh, app.clock.now());
    return {
      kind: "refreshed",
      tokens: { ...fresh, refreshToken: fresh.refreshToken ?? account.tokens.refreshToken },
    };
  });
}

/** The widest refresh window of any adapter, seconds (accounts nearer expiry than this are looked at). */
const LOOKAHEAD_SECONDS = 14 * 24 * 3600;

export interface RefreshReport {
  refreshed: number;
  needsReconnect: number;
  failed: number;
}

/**
 * One refresh pass over accounts whose tokens expire soon, at most `limit`.
 * @returns counts of refreshed accounts, accounts now needing reconnection and transient failures.
 */
export async function refreshExpiringTokens(app: AppContext, limit = 100): Promise<RefreshReport> {
  const now = app.clock.now();
  const rows: Array<{ id: string; network: string; mode: string; token_expires_at: Date }> = await app
    .db("social_accounts")
    .where({ status: "connected" })
    .whereNotNull("token_expires_at")
    // Instagram has no refresh token: its long-lived access token itself is refreshed (ig_refresh_token).
    .where((q) => q.whereNotNull("refresh_token_sealed").orWhere({ network: "instagram" }))
    .where("token_expires_at", "<", new Date(now.getTime() + LOOKAHEAD_SECONDS * 1000))
    .orderBy("token_expires_at")
    .limit(limit)
    .select("id", "network", "mode", "token_expires_at");
  const report: RefreshReport = { refreshed: 0, needsReconnect: 0, failed: 0 };
  for (const r of rows) {
    let adapter: NetworkAdapter;
    try {
      adapter = app.providers.networks.forAccount(
        r.network as Network,
        r.mode === "live" ? "live" : "sandbox",
      );
    } catch {
      continue;
    }
    const ahead = adapter.oauth.refreshAheadSeconds ?? 3600;
    if (r.token_expires_at.getTime() - now.getTime() > ahead * 1000) continue;
    try {
      const outcome = await refreshAccountTokens(app, r.id, adapter, ahead);
      if (outcome.kind === "refreshed") report.refreshed += 1;
    } catch (err) {
      if (err instanceof NetworkAuthError) {
        await markNeedsReconnect(app.db, r.id, err.message, app.clock.now());
        report.needsReconnect += 1;
      } else {
        report.failed += 1;
        app.log.warn(
          { social_account_id: r.id, errName: (err as Error)?.name },
          "token refresh failed; retried later",
        );
      }
    }
  }
  return report;
}
