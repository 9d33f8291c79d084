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
  /** Each metric of `maxima` from `seed`, null when the network does not report it. */
  const counters = <K extends string>(
    seed: string,
    maxima: Record<K, number>,
    unreported: readonly string[],
  ) =>
    Object.fromEntries(
      Object.entries<number>(maxima).map(([m, max]) => [
        m,
        unreported.includes(m) ? null : sandboxNumber(`${seed}:${m}`, max),
      ]),
    ) as Record<K, number | null>;
  return {
    async account(account): Promise<AccountCounters> {
      check(account);
      return counters(
        account.id,
        { followers: 50_000, views: 2_000_000, likes: 100_000, comments: 10_000, shares: 5_000 },
        skip.account,
      );
    },
    async post(account, post): Promise<PostCounters> {
      check(account);
      return counters(
        post.networkPostId,
        { views: 100_000, reach: 80_000, likes: 10_000, comments: 1_000, shares: 500, saves: 800 },
        skip.post,
      );
    },
  };
}
