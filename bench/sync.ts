/**
 * `npm run bench:sync` (issue 27.5): the nightly metrics sync as queued work, against the provider-shaped
 * fakes of test/fakes/ (YouTube `videos.list` up to 50 ids, X `GET /2/tweets` up to 100 ids, both refusing
 * more with the networks' error bodies) answering every call after 50 ms, with 2 workers (two pg-boss
 * consumers of `analytics-sync-account`, WORKER_CONCURRENCY each, in this process) on a fresh database.
 * Accounts are split between YouTube and X, the published deliveries spread evenly over them.
 * Options: `--accounts N` (default 10000), `--posts N` (default 100000). Prints the wall time, the run's
 * progress, the network calls per post per network and the process's peak RSS. Not part of `npm test`.
 */
import { parseArgs } from "node:util";
import { createUser } from "../src/domain/account/accounts.ts";
import { startNightlyRun } from "../src/domain/analytics/sync.ts";
import { upsertConnectedAccount } from "../src/domain/social/accounts.ts";
import { ANALYTICS_ACCOUNT_QUEUE, createBoss } from "../src/operations/boss.ts";
import { startWorker } from "../src/operations/worker.ts";
import { freshService } from "./fresh-db.ts";
import { FAKE_APPS, liveNetworkEnv } from "../test/fakes/live-env.ts";
import { startFakeNetworks } from "../test/fakes/server.ts";
import { X_API_HOST, xFake } from "../test/fakes/x.ts";
import { GOOGLE_APIS_HOST, SCOPE_READONLY, SCOPE_UPLOAD, youtubeFake } from "../test/fakes/youtube.ts";

const { values } = parseArgs({ options: { accounts: { type: "string" }, posts: { type: "string" } } });
const ACCOUNTS = Number(values.accounts ?? 10_000);
const POSTS = Number(values.posts ?? 100_000);
const LATENCY_MS = 50;

async function main() {
  const server = await startFakeNetworks();
  for (const host of [GOOGLE_APIS_HOST, X_API_HOST])
    server.fault({ host, path: /.*/, times: Number.MAX_SAFE_INTEGER }, { kind: "slow", delayMs: LATENCY_MS });
  const yt = youtubeFake(server, FAKE_APPS.youtube);
  const x = xFake(server, FAKE_APPS.x);

  const service = await freshService("bench_sync", liveNetworkEnv(server, ["youtube", "x"]));
  const { ctx } = service;
  const workers: Array<{ stop(): Promise<void> }> = [];
  try {
    const seedStart = Date.now();
    const who = await createUser(ctx.db, {
      email: "bench-sync@example.test",
      password: "benchmark password",
      workspace: "Bench",
    });
    const owner = { userId: who.user_id, workspaceId: who.workspace_id };
    const accounts: Array<{ id: string; network: "youtube" | "x"; owner: string }> = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const network = i % 2 === 0 ? "youtube" : "x";
      const user = network === "youtube" ? yt.addUser({ subscriberCount: i }) : x.addUser({ followers: i });
      const networkAccountId =
        network === "youtube"
          ? (user as ReturnType<typeof yt.addUser>).channel!.id
          : (user as ReturnType<typeof x.addUser>).id;
      const { account } = await upsertConnectedAccount(ctx.db, ctx.sealer, owner, {
        network,
        mode: "live",
        account: {
          networkAccountId,
          handle: `b${i}`,
          capabilities: { text: true, image: true, carousel: true, video: true },
        },
        tokens: {
          accessToken: user.accessToken,
          scopes: network === "youtube" ? [SCOPE_UPLOAD, SCOPE_READONLY] : [],
        },
        now: new Date(),
      });
      accounts.push({ id: account.social_account_id, network, owner: networkAccountId });
    }
    const CHUNK = 1000;
    for (let start = 0; start < POSTS; start += CHUNK) {
      const n = Math.min(CHUNK, POSTS - start);
      const posts = await ctx
        .db("posts")
        .insert(
          Array.from({ length: n }, () => ({
            workspace_id: who.workspace_id,
            user_id: who.user_id,
            type: "video",
            status: "published",
            caption: "b",
          })),
        )
        .returning("id");
      await ctx.db("deliveries").insert(
        posts.map((p, k) => {
          const a = accounts[(start + k) % accounts.length]!;
          const networkPostId =
            a.network === "youtube"
              ? yt.addVideo(a.owner, { viewCount: k, likeCount: 1, commentCount: 1 })
              : x.addTweet(a.owner, { impression_count: k });
          return {
            workspace_id: who.workspace_id,
            user_id: who.user_id,
            post_id: p.id,
            social_account_id: a.id,
            status: "published",
            provider_post_id: networkPostId,
            network_ids: "{}",
            published_at: new Date(Date.now() - (start + k) * 1000),
          };
        }),
      );
    }
    const seedSeconds = (Date.now() - seedStart) / 1000;

    for (let i = 0; i < 2; i++) workers.push(await startWorker(ctx, { schedules: false }));
    const producer = createBoss(ctx, "producer");
    await producer.start();
    const before = { yt: server.counter("youtube.videos.list"), x: server.counter("x.tweets.lookup") };
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 200);
    const started = Date.now();
    const run = await startNightlyRun(ctx, (jobId, singletonKey) =>
      producer.send(ANALYTICS_ACCOUNT_QUEUE, { sync_job_id: jobId }, { singletonKey }),
    );
    let row = run;
    while (!row.finished_at) {
      await new Promise((r) => setTimeout(r, 500));
      row = await ctx.db("analytics_sync_runs").where({ id: run.id }).first();
    }
    const seconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    await producer.stop({ graceful: false, close: true });
    const perNetwork = await ctx
      .db("deliveries as d")
      .join("social_accounts as a", "a.id", "d.social_account_id")
      .groupBy("a.network")
      .select("a.network")
      .count({ n: "*" });
    const postsOf = Object.fromEntries(
      (perNetwork as Array<{ network: string; n: string }>).map((r) => [r.network, Number(r.n)]),
    );
    const ytCalls = server.counter("youtube.videos.list") - before.yt;
    const xCalls = server.counter("x.tweets.lookup") - before.x;
    const [counted] = await ctx.db("post_metrics").whereNull("last_error").count({ n: "*" });
    const saved = counted?.n ?? 0;
    console.log(
      JSON.stringify(
        {
          accounts: ACCOUNTS,
          posts: POSTS,
          latency_ms: LATENCY_MS,
          workers: 2,
          worker_concurrency: ctx.config.worker.concurrency,
          seed_seconds: seedSeconds,
          sync_seconds: seconds,
          run: {
            planned: row.accounts_planned,
            done: row.accounts_done,
            failed: row.accounts_failed,
            skipped: row.accounts_skipped,
          },
          posts_saved: Number(saved),
          youtube_post_calls: ytCalls,
          youtube_calls_per_post: ytCalls / (postsOf.youtube ?? 1),
          x_post_calls: xCalls,
          x_calls_per_post: xCalls / (postsOf.x ?? 1),
          peak_rss_mb_both_workers_one_process: Math.round(peakRss / 1024 / 1024),
          extrapolated_sync_minutes_at_10000_accounts: (seconds * (10_000 / ACCOUNTS)) / 60,
        },
        null,
        2,
      ),
    );
  } finally {
    for (const w of workers) await w.stop();
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
