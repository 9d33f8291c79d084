/**
 * What the nightly sync benchmark (bench/sync.ts) sees the workers read at the fakes: a fake network server
 * that shows each routed request of a watched host to the bench before the host's own wrapper (Meta's
 * metering) runs, and a tally of the network calls (account reads, post reads, other) and of how often each
 * account's own counters and each post were read, per endpoint, to show what is read more than once.
 * Tokens that key an account (`me` endpoints) stay in memory; only counts come out.
 */
import type { Network } from "../src/providers/social/types.ts";
import type { BenchNetwork, Read } from "./sync-networks.ts";
import { FakeNetworkServer, type FakeRequest, type FakeWrapper } from "../test/fakes/server.ts";

/**
 * The fake networks' router, showing every request of a watched host to `watch` before the host's own
 * wrapper (a fake's, kept whenever it is set) runs.
 */
export class WatchedFakeNetworks extends FakeNetworkServer {
  private readonly watch: (req: FakeRequest) => void;
  private readonly inner = new Map<string, FakeWrapper>();

  constructor(watch: (req: FakeRequest) => void) {
    super();
    this.watch = watch;
  }

  /** Shows the requests of `host` to `watch`. */
  watchHost(host: string): void {
    super.wrap(host, (req, next) => {
      this.watch(req);
      const wrapper = this.inner.get(host);
      return wrapper ? wrapper(req, next) : next();
    });
  }

  override wrap(host: string, wrapper: FakeWrapper): void {
    this.inner.set(host, wrapper);
    this.watchHost(host);
  }
}

/** Network calls of one network while the tally counts: account reads, post reads, anything else. */
export interface NetworkCalls {
  account: number;
  posts: number;
  other: number;
}

/**
 * How often something was read: keys read, how many of them more than once, and when each of those was
 * first read (epoch ms), to tell a read in flight when a worker died from a read of something saved.
 */
export interface ReadCounts {
  read: number;
  twice: number;
  firstOfTwice: number[];
}

export class ReadTally {
  /** Counts only while true (the seeding's own calls are not the sync's). */
  counting = false;
  private byHost = new Map<string, BenchNetwork>();
  private readonly calls = new Map<Network, NetworkCalls>();
  /** `{network} {what} {key}` -> endpoint -> reads and the time of the first (epoch ms). */
  private readonly reads = new Map<string, Map<string, { n: number; first: number }>>();

  /** Tallies the requests to the API hosts of `networks`. */
  follow(networks: readonly BenchNetwork[]): void {
    this.byHost = new Map(networks.map((n) => [n.host, n]));
  }

  /** Records one request (a watched host's). */
  see(req: FakeRequest): void {
    const net = this.byHost.get(req.host);
    if (!this.counting || !net) return;
    const read = net.read(req);
    const calls = this.callsOf(net.network);
    if (!read) {
      calls.other += 1;
      return;
    }
    calls[read.what] += 1;
    for (const key of read.keys) this.count(net.network, read, key);
  }

  callsOf(network: Network): NetworkCalls {
    let c = this.calls.get(network);
    if (!c) {
      c = { account: 0, posts: 0, other: 0 };
      this.calls.set(network, c);
    }
    return c;
  }

  /**
   * Accounts (or posts) of `network` read, how many of them more than once on some endpoint (an account's
   * LinkedIn follower count and page totals, a Facebook post's fields and insights, are each one read of
   * their own endpoint), and when those were first read.
   */
  counts(network: Network, what: Read["what"]): ReadCounts {
    const out: ReadCounts = { read: 0, twice: 0, firstOfTwice: [] };
    const prefix = `${network} ${what} `;
    for (const [key, endpoints] of this.reads) {
      if (!key.startsWith(prefix)) continue;
      out.read += 1;
      const repeated = [...endpoints.values()].filter((e) => e.n > 1);
      if (repeated.length === 0) continue;
      out.twice += 1;
      out.firstOfTwice.push(Math.min(...repeated.map((e) => e.first)));
    }
    return out;
  }

  private count(network: Network, read: Read, key: string): void {
    const id = `${network} ${read.what} ${key}`;
    let endpoints = this.reads.get(id);
    if (!endpoints) {
      endpoints = new Map();
      this.reads.set(id, endpoints);
    }
    const seen = endpoints.get(read.endpoint);
    if (seen) seen.n += 1;
    else endpoints.set(read.endpoint, { n: 1, first: Date.now() });
  }
}
