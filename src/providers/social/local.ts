/**
 * The local social provider (default; offline, deterministic). Publishing to a `connected` account succeeds
 * at once with a stable post URL derived from the delivery id; any other account status leaves the delivery
 * `pending` (service spec 2.7: publishing can stay pending). Counters are deterministic numbers derived from
 * the ids, with the metrics a network does not report returned as null, like the real APIs.
 */
import { createHash } from "node:crypto";
import type {
  AccountCounters,
  Network,
  PostCounters,
  ProviderAccount,
  ProviderPost,
  PublishOutcome,
  SocialProvider,
} from "./types.ts";

const HOSTS: Record<Network, string> = {
  instagram: "https://www.instagram.com/p/",
  tiktok: "https://www.tiktok.com/@creator/video/",
  facebook: "https://www.facebook.com/posts/",
  youtube: "https://www.youtube.com/shorts/",
  linkedin: "https://www.linkedin.com/feed/update/",
  pinterest: "https://www.pinterest.com/pin/",
  x: "https://x.com/i/status/",
};

/** Metrics each network does not report through its API (kept null, distinct from 0). */
const UNREPORTED: Record<Network, ReadonlyArray<string>> = {
  instagram: [],
  tiktok: [],
  facebook: ["saves"],
  youtube: ["saves"],
  linkedin: ["views", "saves"],
  pinterest: ["shares", "comments"],
  x: ["saves"],
};

function numberFrom(seed: string, max: number): number {
  const h = createHash("sha256").update(seed).digest();
  return h.readUInt32BE(0) % max;
}

/** Creates the local provider. */
export function localSocialProvider(): SocialProvider {
  return {
    name: "local",
    async publish(account: ProviderAccount, post: ProviderPost): Promise<PublishOutcome> {
      if (account.status !== "connected") {
        return {
          status: "pending",
          reason: `the ${account.network} account needs to be reconnected in the browser`,
        };
      }
      const providerPostId = createHash("sha256")
        .update(`post:${post.deliveryId}`)
        .digest("hex")
        .slice(0, 20);
      return { status: "published", postUrl: `${HOSTS[account.network]}${providerPostId}`, providerPostId };
    },
    async accountCounters(account: ProviderAccount): Promise<AccountCounters | undefined> {
      if (account.status !== "connected") return undefined;
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
      if (account.status !== "connected") return undefined;
      const skip = UNREPORTED[account.network];
      const v = (metric: string, max: number) =>
        skip.includes(metric) ? null : numberFrom(`${providerPostId}:${metric}`, max);
      return {
        views: v("views", 100_000),
        likes: v("likes", 10_000),
        comments: v("comments", 1_000),
        shares: v("shares", 500),
        saves: v("saves", 800),
      };
    },
  };
}
