/**
 * `npm run bench:publish`: posts due in the same minute on accounts spread over the seven networks' fakes
 * (test/fakes/, every call answered after 50 ms), published by worker processes (`node src/main.ts worker`,
 * the service's own worker: bench/sync-workers.ts) on a fresh database, through their delivery lanes
 * (src/operations/deliveries.ts: per network and worker DELIVERY_NETWORK_CONCURRENCY steps at once, one per
 * account on any worker, a network's rate-limit answer pausing its own lane or account only).
 *
 * The fakes enforce the networks' limits and answer past them with their own refusals and headers: X, TikTok,
 * LinkedIn and Pinterest per test/fakes/publish-limits.ts; Facebook and Instagram Meta's app and per-Page /
 * per-account usage (test/fakes/graph.ts) and Instagram's content publishing limit (50 in 24 h); YouTube the
 * project's `videos.insert` bucket (`--youtube-insert-quota`, default 2,000 a day: the documented default
 * is 100, docs/spec/networks.md, so publishing 1,430 videos a day needs a quota extension) and a per-channel
 * upload limit (50 a day here: YouTube publishes none). TikTok names the public post id as soon as the post is
 * complete (no moderation wait). Accounts and posts: bench/publish-seed.ts. The bench
 * process also serves the media pages (`/media/public/{asset}`) that Instagram and Pinterest pull.
 *
 * The workers start first; the posts are written, then all made due at the next whole minute at least 15 s
 * away, as a real schedule would be. Printed as one JSON object: the machine, the run, per network the
 * deliveries, the posts its fake made, the distinct post ids, the delays from the due minute (p50, p95, max)
 * and the fake's answers by status; the limits' tallies; the targets met or not; the cost per post from the
 * due minute to the last delivery closed (bench/publish-cost.ts: the workers' CPU, PostgreSQL's, the SQL
 * statements when pg_stat_statements is loaded, the calls the fakes answered).
 * Options: `--accounts N` (default 1000), `--posts-per-account N` (10), `--concurrency N`
 * (DELIVERY_NETWORK_CONCURRENCY, default 8), `--pool-size N` (the workers' DATABASE_POOL_SIZE, default 10 as
 * the service's), `--workers N` (2), `--timeout-minutes N` (10),
 * `--youtube-insert-quota N` (2000). Not part of `npm test`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { parseArgs } from "node:util";
import type { AppContext } from "../src/context.ts";
import type { Network } from "../src/providers/social/types.ts";
import { startServer } from "../src/server.ts";
import { FB_GRAPH_HOST } from "../test/fakes/facebook.ts";
import { IG_GRAPH_HOST } from "../test/fakes/instagram.ts";
import { LI_API_HOST } from "../test/fakes/linkedin.ts";
import { liveNetworkEnv } from "../test/fakes/live-env.ts";
import { PIN_API_HOST, PIN_UPLOAD_HOST } from "../test/fakes/pinterest.ts";
import { type LimitTally, meterPublishing, PUBLISH_LIMITS } from "../test/fakes/publish-limits.ts";
import { type FakeNetworkServer, startFakeNetworks } from "../test/fakes/server.ts";
import { TT_API_HOST, TT_UPLOAD_HOST } from "../test/fakes/tiktok.ts";
import { X_API_HOST } from "../test/fakes/x.ts";
import { GOOGLE_APIS_HOST } from "../test/fakes/youtube.ts";
import { freshService } from "./fresh-db.ts";
import { type PublishCost, PublishCostProbe } from "./publish-cost.ts";
import { benchOwner, makeDue, seedAccounts, seedDuePosts } from "./publish-seed.ts";
import { BENCH_NETWORKS, benchNetworks, mountBenchFakes } from "./sync-networks.ts";
import {
  benchWorkerEnv,
  startWorkerProcesses,
  stopWorkerProcess,
  type WorkerProcess,
} from "./sync-workers.ts";

const { values } = parseArgs({
  options: {
    accounts: { type: "string" },
    "posts-per-account": { type: "string" },
    concurrency: { type: "string" },
    "pool-size": { type: "string" },
    workers: { type: "string" },
    "timeout-minutes": { type: "string" },
    "youtube-insert-quota": { type: "string" },
  },
});
const ACCOUNTS = Number(values.accounts ?? 1000);
const PER_ACCOUNT = Number(values["posts-per-account"] ?? 10);
const CONCURRENCY = Number(values.concurrency ?? 8);
const POOL_SIZE = Number(values["pool-size"] ?? 10);
const WORKERS = Number(values.workers ?? 2);
const TIMEOUT_MS = Number(values["timeout-minutes"] ?? 10) * 60_000;
const YOUTUBE_INSERT_QUOTA = Number(values["youtube-insert-quota"] ?? 2000);
const YOUTUBE_CHANNEL_UPLOADS = 50;
/** LinkedIn publishes no numbers (its rate-limits page): the limits a portal might show, per day. */
const LINKEDIN_LIMITS = { member: 150, app: 100_000 };
const LATENCY_MS = 50;
const POLL_MS = 500;
const MB = 1024 * 1024;
const DAY = 86_400_000;

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!);
}

/** The hosts the networks' calls reach (API and upload hosts), each answered after LATENCY_MS. */
const HOSTS = [
  X_API_HOST,
  TT_API_HOST,
  TT_UPLOAD_HOST,
  GOOGLE_APIS_HOST,
  IG_GRAPH_HOST,
  FB_GRAPH_HOST,
  LI_API_HOST,
  PIN_API_HOST,
  PIN_UPLOAD_HOST,
];

/** The counter of posts each fake made (test/fakes/*.ts). */
const MADE: Record<Network, string> = {
  x: "x.tweets",
  facebook: "facebook.publishes",
  instagram: "instagram.publishes",
  linkedin: "linkedin.posts",
  pinterest: "pinterest.pins",
  tiktok: "tiktok.publishes",
  youtube: "youtube.videos",
};

/** Answers of the fakes by host and status (e.g. `{"api.x.com": {"201": 1430}}`). */
function answersByHost(server: FakeNetworkServer): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const h of server.hits) {
    out[h.host] ??= {};
    const byStatus = out[h.host]!;
    byStatus[String(h.status)] = (byStatus[String(h.status)] ?? 0) + 1;
  }
  return out;
}

/** Waits until no delivery is open or TIMEOUT_MS passed; seconds from `due` when the last one closed. */
async function waitAllClosed(ctx: AppContext, due: Date): Promise<{ closed: boolean; seconds: number }> {
  const deadline = due.getTime() + TIMEOUT_MS;
  for (;;) {
    const [open] = await ctx
      .db("deliveries")
      .whereIn("status", ["pending", "uploading", "processing", "outcome_unknown"])
      .count({ n: "*" });
    if (Number(open?.n) === 0) return { closed: true, seconds: (Date.now() - due.getTime()) / 1000 };
    if (Date.now() > deadline) return { closed: false, seconds: (Date.now() - due.getTime()) / 1000 };
    await sleep(POLL_MS);
  }
}

/** Per network: deliveries by status, posts made at its fake, distinct post ids, delays from `due`. */
async function perNetwork(ctx: AppContext, server: FakeNetworkServer, due: Date) {
  const rows: Array<{
    network: Network;
    status: string;
    published_at: Date | null;
    provider_post_id: string | null;
    error: string | null;
  }> = await ctx
    .db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .select("a.network", "d.status", "d.published_at", "d.provider_post_id", "d.error");
  const out: Record<string, unknown> = {};
  const all: number[] = [];
  for (const n of BENCH_NETWORKS) {
    const mine = rows.filter((r) => r.network === n);
    const published = mine.filter((r) => r.status === "published" && r.published_at);
    const delays = published
      .map((r) => (new Date(r.published_at!).getTime() - due.getTime()) / 1000)
      .sort((a, b) => a - b);
    all.push(...delays);
    const statuses: Record<string, number> = {};
    for (const r of mine) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const made = server.counter(MADE[n]);
    const distinct = new Set(published.map((r) => r.provider_post_id)).size;
    out[n] = {
      deliveries: mine.length,
      statuses,
      posts_made_at_fake: made,
      distinct_post_ids: distinct,
      one_post_per_delivery: made === mine.length && distinct === mine.length,
      delay_s: {
        min: percentile(delays, 0),
        p50: percentile(delays, 50),
        p95: percentile(delays, 95),
        max: delays.at(-1) ?? null,
      },
      ...(mine.find((r) => r.error) ? { error_sample: mine.find((r) => r.error)!.error } : {}),
    };
  }
  all.sort((a, b) => a - b);
  return { networks: out, all };
}

async function main() {
  const startLoad = os.loadavg().map((l) => round(l, 2));
  const server = await startFakeNetworks();
  const fakes = mountBenchFakes(server);
  fakes.yt.insertQuota = YOUTUBE_INSERT_QUOTA;
  fakes.yt.uploadLimit = YOUTUBE_CHANNEL_UPLOADS;
  // TikTok names the public post id with PUBLISH_COMPLETE: its moderation's time is TikTok's, not the lanes'.
  fakes.tt.postIdPolls = 0;
  const networks = benchNetworks(server, fakes);
  const tallies: Record<string, LimitTally> = {
    x: meterPublishing(server, "x", PUBLISH_LIMITS.x),
    tiktok: meterPublishing(server, "tiktok", PUBLISH_LIMITS.tiktok),
    pinterest: meterPublishing(server, "pinterest", PUBLISH_LIMITS.pinterest),
    linkedin: meterPublishing(server, "linkedin", {
      perUser: { count: LINKEDIN_LIMITS.member, windowMs: DAY, kind: "utc_day" },
      perApp: { count: LINKEDIN_LIMITS.app, windowMs: DAY, kind: "utc_day" },
    }),
  };
  // The service's pages (the signed media URLs the networks pull) on a port known before the boot.
  const listener = http.createServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const publicBaseUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  const env = {
    ...liveNetworkEnv(server, BENCH_NETWORKS),
    LINKEDIN_ORGANIZATIONS: "true",
    PUBLIC_BASE_URL: publicBaseUrl,
    DELIVERY_NETWORK_CONCURRENCY: String(CONCURRENCY),
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    // Every fake pulls the media from one address (127.0.0.1): the per-IP limit of /media/public (600 a
    // minute by default) would refuse the Instagram and Pinterest pulls past it, which the networks' many
    // fetchers do not meet in one window; this bench measures the publishing, not that limit.
    RATE_LIMIT_MEDIA_PUBLIC: "1000000",
  };
  const service = await freshService("bench_publish", env);
  const { ctx } = service;
  const pages = await startServer(ctx, listener);
  const workers: WorkerProcess[] = [];
  try {
    const seedStart = Date.now();
    const owner = await benchOwner(ctx);
    const accounts = await seedAccounts(ctx, owner, networks, ACCOUNTS);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    for (const host of HOSTS)
      server.fault(
        { host, path: /.*/, times: Number.MAX_SAFE_INTEGER },
        { kind: "slow", delayMs: LATENCY_MS },
      );
    server.hits.length = 0;
    const workerEnv = benchWorkerEnv(ctx, env);
    workers.push(...(await startWorkerProcesses(WORKERS, workerEnv)));
    // The workers' CPU while nothing is due, from here to the due minute (bench/publish-cost.ts).
    const probe = new PublishCostProbe(
      process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
      new URL(ctx.config.databaseUrl!).pathname.slice(1),
      workers.map((w) => w.pid),
    );
    await probe.idleFrom();
    const deliveries = await seedDuePosts(ctx, owner, accounts, PER_ACCOUNT, new Date(Date.now() + DAY));
    const due = new Date(Math.ceil((Date.now() + 15_000) / 60_000) * 60_000);
    await makeDue(ctx, due);
    console.error(
      `${deliveries} posts on ${accounts.length} accounts due at ${due.toISOString()}, in ${Math.round((due.getTime() - Date.now()) / 1000)} s`,
    );
    // The cost per post is measured from the due minute (the workers idle before it) to all closed.
    const probeStarted = sleep(Math.max(0, due.getTime() - Date.now())).then(() => probe.start());
    const end = await waitAllClosed(ctx, due);
    await probeStarted;
    const cost: PublishCost = await probe.end(deliveries);
    const ends = await Promise.all(workers.map((w) => stopWorkerProcess(w)));
    const { networks: byNetwork, all } = await perNetwork(ctx, server, due);
    const stops = await ctx.db("delivery_network_stops").select("network", "until", "reason");
    const reports = Object.values(byNetwork) as Array<{ one_post_per_delivery: boolean }>;
    const limitsKept = Object.entries(tallies).map(([n, t]) => ({ network: n, ...t }));
    const out = {
      machine: {
        nproc: os.availableParallelism(),
        cpu: os.cpus()[0]?.model ?? "unknown",
        node: process.version,
        load_average_start: startLoad,
        load_average_end: os.loadavg().map((l) => round(l, 2)),
      },
      accounts: accounts.length,
      posts: deliveries,
      latency_ms: LATENCY_MS,
      workers: WORKERS,
      delivery_network_concurrency: CONCURRENCY,
      database_pool_size: POOL_SIZE,
      youtube_insert_quota: YOUTUBE_INSERT_QUOTA,
      seed_seconds: round(seedSeconds),
      due_at: due.toISOString(),
      seconds_from_due_to_all_closed: round(end.seconds),
      timed_out: !end.closed,
      published: all.length,
      cost_per_post: {
        ...cost,
        network_calls_per_post: round(server.hits.length / deliveries, 2),
      },
      delay_from_due_s: { p50: percentile(all, 50), p95: percentile(all, 95), max: all.at(-1) ?? null },
      networks: byNetwork,
      limits: limitsKept,
      network_stops: stops,
      answers_by_host: answersByHost(server),
      worker_processes: workers.map((w, i) => ({
        name: w.name,
        peak_rss_mb: Math.round(w.peakRss() / MB),
        ended: ends[i],
      })),
      targets: {
        all_published_within_5_minutes: all.length === deliveries && (all.at(-1) ?? Infinity) <= 300,
        p95_delay_under_2_minutes: (percentile(all, 95) ?? Infinity) < 120,
        exactly_one_post_per_delivery: reports.every((r) => r.one_post_per_delivery),
      },
    };
    console.log(JSON.stringify(out, null, 2));
  } finally {
    for (const w of workers) w.signal("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    await pages.close(1);
    await service.close();
    await server.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
