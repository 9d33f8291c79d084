/**
 * The social network provider boundary (service spec 1.8, 2.7): the registry of network adapters (connect
 * and publish, ./network.ts) and the analytics counters. Credentials reach a provider only as opened
 * (decrypted) values inside this boundary; they are never returned to callers or serialized.
 */

/** The seven integrated networks (DESIGN.md section 4). `tiktok` is the short-video network. */
export const NETWORKS = ["instagram", "tiktok", "facebook", "youtube", "linkedin", "pinterest", "x"] as const;
export type Network = (typeof NETWORKS)[number];

export function isNetwork(v: unknown): v is Network {
  return typeof v === "string" && (NETWORKS as readonly string[]).includes(v);
}

/** The account as a provider sees it. */
export interface ProviderAccount {
  id: string;
  network: Network;
  handle: string | null;
  /** connected | needs_reconnect | disconnected (older rows: expired | error) */
  status: string;
  /** live | sandbox */
  mode?: string | undefined;
  /** Opened access token, when the provider needs one. */
  accessToken?: string | undefined;
}

/** Lifetime counters as reported by the network; `null` = the network does not report it (missing, not 0). */
export interface AccountCounters {
  followers: number | null;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
}

export interface PostCounters {
  views: number | null;
  /** Unique accounts reached (Instagram `reach`, Facebook `post_impressions_unique`, ...). */
  reach: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
}

/** Analytics counters of accounts and published posts (service spec 6.3). */
export interface SocialProvider {
  readonly name: string;
  /** Current lifetime counters of the account, or undefined when the account cannot be read now. */
  accountCounters(account: ProviderAccount): Promise<AccountCounters | undefined>;
  /** Current lifetime counters of a published post, or undefined when it cannot be read now. */
  postCounters(account: ProviderAccount, providerPostId: string): Promise<PostCounters | undefined>;
}
