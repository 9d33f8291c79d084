/**
 * The social network provider boundary (service spec 1.8, 2.7): the networks, the account as a provider sees
 * it and the analytics counters the adapters' `NetworkMetrics` return (./network.ts). Credentials reach a
 * provider only as opened (decrypted) values inside this boundary; they are never returned to callers or
 * serialized.
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

/** Lifetime counters of an account as the network reports them; `null` = not reported (missing, not 0). */
export interface AccountCounters {
  followers: number | null;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
}

/** Lifetime counters of a published post as the network reports them; `null` = not reported. */
export interface PostCounters {
  views: number | null;
  /** Unique accounts reached (Instagram `reach`, Facebook `post_total_media_view_unique`, ...). */
  reach: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
}
