/**
 * Token refresh before expiry (service spec 1.8; Instagram long-lived token refresh, TikTok's 24 h access
 * token): every connected account whose access token expires within its network's `refreshAheadSeconds`
 * (src/providers/social/network.ts, default 1 h) is refreshed through its adapter. A refusal the adapter
 * recognises as an auth error (`NetworkAuthError`: revoked, expired beyond refresh) sets the account
 * `needs_reconnect`; any other failure (5xx, timeout) leaves the account connected and is tried again on the
 * next pass.
 */
import type { AppContext } from "../../context.ts";
import { type NetworkAdapter, NetworkAuthError } from "../../providers/social/network.ts";
import type { Network } from "../../providers/social/types.ts";
import { markNeedsReconnect, openAccount, saveRefreshedTokens } from "./accounts.ts";

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
      const account = await openAccount(app.db, app.sealer, r.id);
      const fresh = await adapter.oauth.refresh(account.tokens);
      await saveRefreshedTokens(app.db, app.sealer, r.id, fresh, app.clock.now());
      report.refreshed += 1;
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
