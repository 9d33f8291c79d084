/**
 * Sandbox analytics counters (offline, deterministic): until the networks' analytics adapters exist, the
 * daily sync (src/domain/analytics/sync.ts) reads these for connected accounts. They are sandbox numbers
 * derived from the ids (not read from any network), with the metrics a network does not report returned as
 * null, like the real APIs. Accounts that are not connected cannot be read (undefined).
 */
import { createHash } from "node:crypto";
import type { AccountCounters, Network, PostCounters, ProviderAccount, SocialProvider } from "../types.ts";

/** Metrics each network does not report through its API (kept null, distinct from 0). */
const UNREPORTED: Record<Network, ReadonlyArray<string>> = {
  instagram: [],
  tiktok: ["reach"],
  facebook: ["saves"],
  youtube: ["saves", "reach"],
  linkedin: ["views", "saves"],
  pinterest: ["shares", "comments", "reach"],
  x: ["saves", "reach"],
};

function numberFrom(seed: string, max: number): number {
  const h = createHash("sha256").update(seed).digest();
  return h.readUInt32BE(0) % max;
}

/** Creates the sandbox analytics counters. */
export function sandboxAnalytics(): SocialProvider {
  return {
    name: "sandbox",
    async accountCounters(account: ProviderAccount): Promise<AccountCounters | undefined> {
      if (account.status !== "connected" || account.mode === "live") return undefined;
      const skip = UNREPORTED[account.network];
      const v = (metric: string, max: number) =>
        skip.includes(metric) ? null : numberFrom(`${account.id}:${metric}`, max);
      return {
        followers: v("followers", 50_000),
        views: v("views", 2_000_000),
        likes: v("likes", 100_000),
        comments: v("comments", 10_000),
        shares: v("shares", 5_000),
      };
    },
    async postCounters(account: ProviderAccount, providerPostId: string): Promise<PostCounters | undefined> {
      if (account.status !== "connected" || account.mode === "live") return undefined;
      const skip = UNREPORTED[account.network];
      const v = (metric: string, max: number) =>
        skip.includes(metric) ? null : numberFrom(`${providerPostId}:${metric}`, max);
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
