/**
 * `npm run bench:sync` (bench/README.md "bench:sync"): the nightly metrics sync of accounts on all seven
 * networks, each on its provider-shaped fake of test/fakes/ with the networks' batch sizes and limits
 * (bench/sync-networks.ts), every call answered after 50 ms, read by 2 worker processes (`node src/main.ts
 * worker`, the service's own worker with its schedules: bench/sync-workers.ts) on a fresh database. The
 * accounts (`upsertConnectedAccount` as the connect flow does it) go round the networks in turn, the
 * published deliveries spread evenly over them (or `--posts-per-account` each), every post with nonzero
 * counters at its fake. The bench plans the night's run as the worker's nightly job does (`startNightlyRun`,
 * a pg-boss producer) and waits for its `finished_at`. With `--kill` (the default), once more than half of
 * the run's accounts ended, worker 1 is SIGKILLed and a new worker process started in its place; the jobs it
 * held are queued again when their lease (WORKER_LEASE_SECONDS) runs out and sent to the workers again.
 *
 * It prints one JSON object: the machine (cores, CPU, Node, load average at the start and the end), the
 * seeding and sync times, the run's row, each worker's peak RSS (VmRSS sampled every 200 ms and VmHWM from
 * /proc), the kill, and per network: posts saved and errors, network calls (account reads, post reads,
 * others) and calls per post, and the accounts and posts read more than once at the fakes
 * (bench/sync-reads.ts), with when the first of those reads was relative to the kill (a read in flight when
 * the worker died is read again: its answer was never saved); then the issue's targets met or not.
 *
 * Options: `--accounts N` (default 10000), `--posts N` (default 100000) or `--posts-per-account N`,
 * `--concurrency N` (ANALYTICS_SYNC_CONCURRENCY of each worker, default the service's 8),
 * `--lease-seconds N` (WORKER_LEASE_SECONDS, default 30), `--no-kill`, `--timeout-minutes N` (default 60:
 * the run's state is printed as it stands then). Not part of `npm test`.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { createUser } from "../src/domain/account/accounts.ts";
import type { Owner } from "../src/domain/owner.ts";
import { type SyncRun, startNightlyRun } from "../src/domain/analytics/sync.ts";
import { ANALYTICS_ACCOUNT_QUEUE, createBoss } from "../src/operations/boss.ts";
import type { AppContext } from "../src/context.ts";
import type { Network } from "../src/providers/social/types.ts";
import { liveNetworkEnv } from "../test/fakes/live-env.ts";
import { freshService } from "./fresh-db.ts";
import {
  BENCH_NETWORKS,
  type BenchNetwork,
  benchNetworks,
  connectBenchAccount,
  type PostSeed,
} from "./sync-networks.ts";
import { ReadTally, WatchedFakeNetworks } from "./sync-reads.ts";
import {
  benchWorkerEnv,
  startWorkerProcess,
  startWorkerProcesses,
  stopWorkerProcess,
  type WorkerProcess,
} from "./sync-workers.ts";

const { values } = parseArgs({
  options: {
    accounts: { type: "string" },
    posts: { type: "string" },
    "posts-per-account": { type: "string" },
    concurrency: { type: "string" },
    "lease-seconds": { type: "string" },
    kill: { type: "boolean", default: true },
    "timeout-minutes": { type: "string" },
  },
  allowNegative: true,
});
const ACCOUNTS = Number(values.accounts ?? 10_000);
const POSTS =
  values["posts-per-account"] !== undefined
    ? ACCOUNTS * Number(values["posts-per-account"])
    : Number(values.posts ?? 100_000);
const CONCURRENCY = Number(values.concurrency ?? 8);
const LEASE_SECONDS = Number(values["lease-seconds"] ?? 30);
const KILL = values.kill;
const TIMEOUT_MS = Number(values["timeout-minutes"] ?? 60) * 60_000;
const LATENCY_MS = 50;
const WORKERS = 2;
/** Accounts connected at once while seeding, and rows per insert. */
const SEED_PARALLEL = 16;
const INSERT_ROWS = 1000;
const POLL_MS = 500;
const MB = 1024 * 1024;

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The posts of account `i`: POSTS spread evenly over the accounts. */
const postsOf = (i: number) => Math.floor(POSTS / ACCOUNTS) + (i < POSTS % ACCOUNTS ? 1 : 0);

/** Published deliveries (one post each) collected while seeding and inserted `INSERT_ROWS` at a time. */
class DeliveryRows {
  private rows: Array<{ accountId: string; post: PostSeed }> = [];
  private published = 0;
  private readonly ctx: AppContext;
  private readonly owner: Owner;

  constructor(ctx: AppContext, owner: Owner) {
    this.ctx = ctx;
    this.owner = owner;
  }

  async add(accountId: string, post: PostSeed): Promise<void> {
    this.rows.push({ accountId, post });
    if (this.rows.length >= INSERT_ROWS) await this.flush();
  }

  async flush(): Promise<void> {
    const rows = this.rows.splice(0);
    if (rows.length === 0) return;
    const own = { workspace_id: this.owner.workspaceId, user_id: this.owner.userId };
    const posts = await this.ctx
      .db("posts")
      .insert(rows.map((r) => ({ ...own, type: r.post.type, status: "published", caption: "bench" })))
      .returning("id");
    await this.ctx.db("deliveries").insert(
      rows.map((r, k) => {
        this.published += 1;
        return {
          ...own,
          post_id: posts[k].id,
          social_account_id: r.accountId,
          status: "published",
          provider_post_id: r.post.id,
          network_ids: JSON.stringify(r.post.networkIds),
          published_at: new Date(Date.now() - this.published * 1000),
        };
      }),
    );
  }
}

/** Connects account `i` (on the network its place gives) and adds its posts at the fake and the database. */
async function seedAccount(
  ctx: AppContext,
  owner: Owner,
  networks: Record<Network, BenchNetwork>,
  deliveries: DeliveryRows,
  i: number,
): Promise<void> {
  const { id, user } = await connectBenchAccount(ctx, owner, networks, i);
  for (let k = 0; k < postsOf(i); k++) await deliveries.add(id, user.addPost(k));
}

/** One owner's ACCOUNTS accounts and POSTS published deliveries; resolves once all are in the database. */
async function seed(ctx: AppContext, networks: Record<Network, BenchNetwork>): Promise<void> {
  const who = await createUser(ctx.db, {
    email: "bench-sync@example.test",
    password: "benchmark password",
    workspace: "Bench",
  });
  const owner: Owner = { userId: who.user_id, workspaceId: who.workspace_id };
  const deliveries = new DeliveryRows(ctx, owner);
  for (let start = 0; start < ACCOUNTS; start += SEED_PARALLEL) {
    const group = Array.from({ length: Math.min(SEED_PARALLEL, ACCOUNTS - start) }, (_, j) => start + j);
    await Promise.all(group.map((i) => seedAccount(ctx, owner, networks, deliveries, i)));
  }
  await deliveries.flush();
}

interface KillReport {
  worker: string;
  pid: number;
  /** Epoch ms of the SIGKILL (not printed). */
  at: number;
  at_seconds: number;
  accounts_ended_at_kill: number;
  restarted_as: string;
  restarted_pid: number;
  restart_ready_seconds: number;
}

/** SIGKILLs `workers[0]` and starts a new worker process in its place (appended to `workers`). */
async function killAndRestart(
  workers: WorkerProcess[],
  env: Record<string, string>,
  started: number,
  ended: number,
): Promise<KillReport> {
  const victim = workers[0]!;
  victim.signal("SIGKILL");
  const at = Date.now();
  await victim.exited;
  const restarted = await startWorkerProcess(`${victim.name}-restarted`, env);
  workers.push(restarted);
  return {
    worker: victim.name,
    pid: victim.pid,
    at,
    at_seconds: round((at - started) / 1000),
    accounts_ended_at_kill: ended,
    restarted_as: restarted.name,
    restarted_pid: restarted.pid,
    restart_ready_seconds: round((Date.now() - at) / 1000),
  };
}

/** The run's row as the bench last saw it, and when its progress last moved (seconds after `started`). */
interface Watched {
  run: SyncRun;
  lastProgressSeconds: number;
}

/** The run's row every POLL_MS until `finished_at` or TIMEOUT_MS; `atHalf` once more than half ended. */
async function watchRun(
  ctx: AppContext,
  runId: string,
  started: number,
  atHalf: ((ended: number) => Promise<void>) | undefined,
): Promise<Watched> {
  const deadline = started + TIMEOUT_MS;
  let halfDone = false;
  let last = { ended: -1, at: started };
  for (;;) {
    const run: SyncRun = await ctx.db("analytics_sync_runs").where({ id: runId }).first();
    const ended = run.accounts_done + run.accounts_failed + run.accounts_skipped;
    if (ended !== last.ended) last = { ended, at: Date.now() };
    if (run.finished_at || Date.now() > deadline)
      return { run, lastProgressSeconds: round((last.at - started) / 1000) };
    if (atHalf && !halfDone && ended * 2 > run.accounts_planned) {
      halfDone = true;
      await atHalf(ended);
    }
    await sleep(POLL_MS);
  }
}

/**
 * The run's jobs that did not end, by status and attempts, with the state of the pg-boss job of their
 * singleton key (`{run key}:{account}`, none when pg-boss holds no job for it).
 */
async function unfinishedJobs(ctx: AppContext, run: SyncRun) {
  const rows = await ctx.db.raw(
    `select j.status, j.attempts, coalesce(b.state::text, 'none') as boss_state, count(*)::int as jobs
     from analytics_sync_jobs j
     left join pgboss.job b
       on b.name = ? and b.singleton_key = ? || ':' || j.social_account_id and b.state <= 'active'
     where j.run_id = ? and j.status in ('queued', 'running')
     group by 1, 2, 3 order by 1, 2, 3`,
    [ANALYTICS_ACCOUNT_QUEUE, run.run_key, run.id],
  );
  return rows.rows as Array<{ status: string; attempts: number; boss_state: string; jobs: number }>;
}

/**
 * Per network: its accounts (or posts), how many of them the run of time `at` saved without an error, how
 * many have an error, and one of the errors.
 */
async function savedOf(ctx: AppContext, at: Date, items: "accounts" | "posts") {
  const [counted, from] =
    items === "posts"
      ? [
          "d.id",
          `social_accounts a join deliveries d on d.social_account_id = a.id
           left join post_metrics m on m.delivery_id = d.id`,
        ]
      : ["a.id", "social_accounts a left join account_metrics m on m.social_account_id = a.id"];
  const { rows } = await ctx.db.raw(
    `select a.network, count(${counted})::int as items,
       count(m.id) filter (where m.last_error is null and m.synced_at = ?)::int as saved,
       count(m.id) filter (where m.last_error is not null)::int as errors,
       min(m.last_error) as error_sample
     from ${from} group by a.network`,
    [at],
  );
  return new Map((rows as Array<Record<string, unknown>>).map((r) => [r.network as Network, r]));
}

/** `savedOf` for the accounts and the posts. */
async function savedByNetwork(ctx: AppContext, at: Date) {
  return { accounts: await savedOf(ctx, at, "accounts"), posts: await savedOf(ctx, at, "posts") };
}

/**
 * The report of one network: what was saved, the calls made and the reads repeated, with the first of each
 * repeated read's time after the kill (`killedAt`, epoch ms), min and max, ms: a read in flight when the
 * worker died is first read just before it (or up to the 50 ms latency after: the fake sees it late).
 */
function networkReport(
  net: BenchNetwork,
  tally: ReadTally,
  saved: Awaited<ReturnType<typeof savedByNetwork>>,
  killedAt: number | undefined,
) {
  const p = saved.posts.get(net.network) ?? {};
  const a = saved.accounts.get(net.network) ?? {};
  const calls = tally.callsOf(net.network);
  const posts = Number(p.items ?? 0);
  const accountReads = tally.counts(net.network, "account");
  const postReads = tally.counts(net.network, "posts");
  const firsts = [...accountReads.firstOfTwice, ...postReads.firstOfTwice].map((t) => t - (killedAt ?? t));
  return {
    accounts: Number(a.items ?? 0),
    accounts_saved: Number(a.saved ?? 0),
    account_errors: Number(a.errors ?? 0),
    ...(a.error_sample ? { account_error_sample: a.error_sample } : {}),
    posts,
    posts_saved: Number(p.saved ?? 0),
    post_errors: Number(p.errors ?? 0),
    ...(p.error_sample ? { post_error_sample: p.error_sample } : {}),
    posts_per_call_limit: net.postsPerCall,
    account_calls: calls.account,
    post_calls: calls.posts,
    other_calls: calls.other,
    post_calls_per_post: posts ? round(calls.posts / posts, 4) : null,
    calls_per_post: posts ? round((calls.account + calls.posts + calls.other) / posts, 4) : null,
    accounts_read: accountReads.read,
    accounts_read_more_than_once: accountReads.twice,
    posts_read: postReads.read,
    posts_read_more_than_once: postReads.twice,
    ...(firsts.length > 0
      ? { repeated_first_read_ms_after_kill: [Math.min(...firsts), Math.max(...firsts)] }
      : {}),
  };
}

/** The machine as the numbers need it: cores, CPU, Node, load average (1, 5, 15 min). */
const machine = () => ({
  nproc: os.availableParallelism(),
  cpu: os.cpus()[0]?.model ?? "unknown",
  node: process.version,
  load_average_start: os.loadavg().map((l) => round(l, 2)),
});

/** How the night went: the run's last row, the times, the kill, how each worker process ended. */
interface Night {
  run: SyncRun;
  syncSeconds: number;
  lastProgressSeconds: number;
  kill: KillReport | undefined;
  ends: string[];
}

/**
 * Plans the night's run as the worker's nightly job does (`startNightlyRun`, sent through a pg-boss
 * producer), watches it to its end (killing and restarting worker 1 halfway with KILL), then stops the
 * workers still running.
 */
async function syncNight(
  ctx: AppContext,
  workers: WorkerProcess[],
  workerEnv: Record<string, string>,
): Promise<Night> {
  const producer = createBoss(ctx, "producer");
  await producer.start();
  const started = Date.now();
  const planned = await startNightlyRun(ctx, (jobId, singletonKey) =>
    producer.send(ANALYTICS_ACCOUNT_QUEUE, { sync_job_id: jobId }, { singletonKey }),
  );
  let kill: KillReport | undefined;
  const atHalf = async (ended: number) => {
    kill = await killAndRestart(workers, workerEnv, started, ended);
  };
  const { run, lastProgressSeconds } = await watchRun(ctx, planned.id, started, KILL ? atHalf : undefined);
  const end = run.finished_at ? new Date(run.finished_at).getTime() : Date.now();
  await producer.stop({ graceful: false, close: true });
  const ends = await Promise.all(
    workers.map((w) => (w.name === kill?.worker ? w.exited : stopWorkerProcess(w))),
  );
  return { run, syncSeconds: (end - started) / 1000, lastProgressSeconds, kill, ends };
}

/** The printed report (see the module comment). */
async function report(
  ctx: AppContext,
  night: Night,
  list: readonly BenchNetwork[],
  tally: ReadTally,
  workers: readonly WorkerProcess[],
  seedSeconds: number,
) {
  const { run, kill } = night;
  const [runs] = await ctx.db("analytics_sync_runs").count({ n: "*" });
  const [takenOver] = await ctx
    .db("analytics_sync_jobs")
    .where({ run_id: run.id })
    .where("attempts", ">", 1)
    .count({ n: "*" });
  const saved = await savedByNetwork(ctx, new Date(run.synced_at));
  const networks = Object.fromEntries(list.map((n) => [n.network, networkReport(n, tally, saved, kill?.at)]));
  const reports = Object.values(networks);
  const sum = (pick: (r: (typeof reports)[number]) => number) => reports.reduce((s, r) => s + pick(r), 0);
  const peaks = workers.map((w, i) => ({
    name: w.name,
    pid: w.pid,
    peak_rss_mb: Math.round(w.peakRss() / MB),
    ended: night.ends[i],
  }));
  const perPost = (n: Network) => networks[n]?.post_calls_per_post ?? Number.POSITIVE_INFINITY;
  return {
    accounts: ACCOUNTS,
    posts: POSTS,
    latency_ms: LATENCY_MS,
    workers: WORKERS,
    analytics_sync_concurrency: CONCURRENCY,
    worker_lease_seconds: LEASE_SECONDS,
    sync_pause_ms: ctx.config.analytics.syncPauseMs,
    seed_seconds: round(seedSeconds),
    sync_seconds: round(night.syncSeconds),
    sync_minutes: round(night.syncSeconds / 60, 2),
    timed_out: run.finished_at === null,
    last_progress_seconds: night.lastProgressSeconds,
    run: {
      run_key: run.run_key,
      planned: run.accounts_planned,
      done: run.accounts_done,
      failed: run.accounts_failed,
      skipped: run.accounts_skipped,
      finished_at_set: run.finished_at !== null,
      jobs_taken_over: Number(takenOver?.n ?? 0),
      runs_in_database: Number(runs?.n ?? 0),
      unfinished_jobs: await unfinishedJobs(ctx, run),
    },
    kill: kill ? { ...kill, at: undefined } : null,
    worker_processes: peaks,
    networks,
    posts_saved: sum((r) => r.posts_saved),
    post_errors: sum((r) => r.post_errors),
    accounts_read_more_than_once: sum((r) => r.accounts_read_more_than_once),
    posts_read_more_than_once: sum((r) => r.posts_read_more_than_once),
    targets: {
      finished_within_30_minutes: run.finished_at !== null && night.syncSeconds <= 30 * 60,
      peak_rss_per_worker_at_most_300_mb: peaks.every((p) => p.peak_rss_mb <= 300),
      youtube_post_calls_per_post_at_most_1_50: perPost("youtube") <= 1 / 50,
      x_post_calls_per_post_at_most_1_100: perPost("x") <= 1 / 100,
      no_account_read_twice: sum((r) => r.accounts_read_more_than_once) === 0,
      no_post_read_twice: sum((r) => r.posts_read_more_than_once) === 0,
    },
  };
}

async function main() {
  const host = machine();
  const tally = new ReadTally();
  const server = await new WatchedFakeNetworks((req) => tally.see(req)).start();
  const networks = benchNetworks(server);
  const list = BENCH_NETWORKS.map((n) => networks[n]);
  tally.follow(list);
  for (const net of list) server.watchHost(net.host);
  const env = {
    ...liveNetworkEnv(server, BENCH_NETWORKS),
    LINKEDIN_ORGANIZATIONS: "true",
    ANALYTICS_SYNC_CONCURRENCY: String(CONCURRENCY),
    WORKER_LEASE_SECONDS: String(LEASE_SECONDS),
  };
  const service = await freshService("bench_sync", env);
  const { ctx } = service;
  const workers: WorkerProcess[] = [];
  try {
    const seedStart = Date.now();
    await seed(ctx, networks);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    for (const net of list)
      server.fault(
        { host: net.host, path: /.*/, times: Number.MAX_SAFE_INTEGER },
        { kind: "slow", delayMs: LATENCY_MS },
      );
    tally.counting = true;
    // The workers open the accounts' tokens with the key the bench sealed them with: the same DATA_DIR.
    const workerEnv = benchWorkerEnv(ctx, env);
    workers.push(...(await startWorkerProcesses(WORKERS, workerEnv)));
    const night = await syncNight(ctx, workers, workerEnv);
    tally.counting = false;
    const out = await report(ctx, night, list, tally, workers, seedSeconds);
    const end = { load_average_end: os.loadavg().map((l) => round(l, 2)) };
    console.log(JSON.stringify({ machine: { ...host, ...end }, ...out }, null, 2));
  } finally {
    for (const w of workers) w.signal("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
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
