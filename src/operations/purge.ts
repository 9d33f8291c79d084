/**
 * Purge of short-lived browser and OAuth records once their lifetime is over (docs/operations.md "Scheduled
 * jobs", maintenance step 9), a step of the maintenance pass (./maintenance.ts): nothing in them is needed
 * after it, and some hold secrets (hashes of session ids and codes, sealed PKCE verifiers, the sealed Page
 * tokens of an abandoned Page pick).
 *
 * | table | deleted when | lifetime |
 * | --- | --- | --- |
 * | `browser_sessions` | `expires_at` passed | 7 days (src/web/session.ts SESSION_TTL) |
 * | `oauth_consent_nonces` | `expires_at` passed (used or not) | 10 minutes (src/oauth/authorize.ts CONSENT_TTL) |
 * | `oauth_authorization_codes` | `expires_at` passed `CODE_REUSE_WATCH_SECONDS` ago | 60 s, kept a day for reuse detection |
 * | `social_connect_states` | `expires_at` passed: states and Page picks, with their sealed verifier and Page tokens | 10 minutes (src/domain/social/connect.ts CONNECT_STATE_TTL) |
 * | `login_throttle` | no attempt for a day | src/domain/account/login-throttle.ts |
 */
import type { AppContext } from "../context.ts";
import { purgeLoginThrottle } from "../domain/account/login-throttle.ts";

/**
 * How long an expired authorization code is kept, seconds (one day): a code presented again after it was
 * used revokes its grant (RFC 6749 section 4.1.2, src/oauth/token.ts); keeping the row a while keeps that
 * detection for replays that come late.
 */
export const CODE_REUSE_WATCH_SECONDS = 24 * 3600;

/** Rows deleted per statement, and statements per table per pass at most (the next pass takes the rest). */
const BATCH = 5000;
const MAX_BATCHES = 20;

/** Deletes rows of `table` whose `expires_at` is before `before`, in batches. @returns how many. */
async function deleteExpired(ctx: AppContext, table: string, before: Date): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const result = await ctx.db.raw(
      `delete from ?? where ctid in (select ctid from ?? where expires_at < ? limit ?)`,
      [table, table, before, BATCH],
    );
    const n = result.rowCount ?? 0;
    total += n;
    if (n < BATCH) break;
  }
  return total;
}

/** What one purge deleted, by table. */
export interface PurgeReport {
  browser_sessions: number;
  oauth_consent_nonces: number;
  oauth_authorization_codes: number;
  social_connect_states: number;
  login_throttle: number;
}

/** Deletes every record above whose lifetime ended before `now`. @returns the counts by table. */
export async function purgeExpired(ctx: AppContext, now: Date): Promise<PurgeReport> {
  return {
    browser_sessions: await deleteExpired(ctx, "browser_sessions", now),
    oauth_consent_nonces: await deleteExpired(ctx, "oauth_consent_nonces", now),
    oauth_authorization_codes: await deleteExpired(
      ctx,
      "oauth_authorization_codes",
      new Date(now.getTime() - CODE_REUSE_WATCH_SECONDS * 1000),
    ),
    social_connect_states: await deleteExpired(ctx, "social_connect_states", now),
    login_throttle: await purgeLoginThrottle(ctx.db, now),
  };
}
