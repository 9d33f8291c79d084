/**
 * The sandbox connector's counters (`NetworkMetrics`, ../network.ts) for the analytics sync: SANDBOX
 * NUMBERS, not read from any network. They are derived from a SHA-256 of the account id or the post's
 * network id (the delivery id), so they are stable from one sync to the next, and every analytics result
 * built from them says `source: "sandbox"`. These are the only derived numbers in the service; live
 * adapters only ever save what the network reports. A metric the network's real API does not give (per
 * network, as the live adapters read them) is null, like the real answers.
 */
import { createHash } from "node:crypto";
import type { AdapterAccount, NetworkMetrics, TokenSet } from "../network.ts";
import type { AccountCounters, Network, PostCounters } from "../types.ts";

/** Counters each network's API does not give (kept null, distinct from 0), for accounts and for posts. */
const UNREPORTED: Record<Network, { account: ReadonlyArray<string>; post: ReadonlyArray<string> }> = {
  instagram: { account: ["views", "likes", "comments", "shares"], post: [] },
  tiktok: { account: ["views", "comments", "shares"], post: ["reach", "saves"] },
  facebook: { account: ["views", "likes", "comments", "shares"], post: ["saves"] },
  youtube: { account: ["likes", "comments", "shares"], post: ["shares", "saves", "reach"] },
  linkedin: { account: ["views", "likes", "comments", "shares"], post: ["views", "saves"] },
  pinterest: { account: ["views", "likes", "comments", "shares"], post: ["shares", "reach"] },
  x: { account: ["views", "likes", "comments", "shares"], post: ["reach"] },
};

/** A sandbox number in [0, max) from `seed`. */
function sandboxNumber(seed: string, max: number): number {
  return createHash("sha256").update(seed).digest().readUInt32BE(0) % max;
}

/**
 * The sandbox counters of `network`. `checkAccess` is the sandbox's own token check (../sandbox/sandbox.ts):
 * an account holding a token must hold a valid one, like a publish step.
 * @throws NetworkAuthError from `checkAccess` for an invalid or expired sandbox token.
 */
export function sandboxMetrics(network: Network, checkAccess: (tokens: TokenSet) => void): NetworkMetrics {
  const skip = UNREPORTED[network];
  const check = (account: AdapterAccount) => {
    if (account.tokens.accessToken) checkAccess(account.tokens);
  };
  return {
    async account(account): Promise<AccountCounters> {
      check(account);
      const v = (metric: string, max: number) =>
        skip.account.includes(metric) ? null : sandboxNumber(`${account.id}:${metric}`, max);
      return {
        followers: v("followers", 50_000),
        views: v("views", 2_000_000),
        likes: v("likes", 100_000),
        comments: v("comments", 10_000),
        shares: v("shares", 5_000),
      };
    },
    async post(account, post): Promise<PostCounters> {
      check(account);
      const v = (metric: string, max: number) =>
        skip.post.includes(metric) ? null : sandboxNumber(`${post.networkPostId}:${metric}`, max);
      return {
        views: v("views", 100_000),
        reach: v("reach", 80_000),
        likes: v("likes", 10_000),
        comments: v("comments", 1_000),
        shares: v("shares", 500),
        saves: v("saves", 800),
      };
    },
  };
}
