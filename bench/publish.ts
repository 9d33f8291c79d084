/**
 * `npm run bench:publish` (bench/README.md): N posts scheduled for the same minute, published by 2 workers
 * against the X fake of test/fakes/x.ts (`POST /2/tweets`, 50 ms per call), spread over 100 accounts. The
 * workers are the service's own (`startWorker` twice in this process, schedules off): each runs its delivery
 * loop (src/operations/deliveries.ts: passes of 50, fair across networks, back to back while full, else
 * every DELIVERY_POLL_SECONDS); every delivery's lease keeps its post single. The posts are due at the next
 * whole minute at least 15 s away, the workers already running, as a real schedule would be. Prints the time
 * from the scheduled minute until all are published, the p50/p95/max delay from the scheduled minute to
 * `published_at`, and the posts X made (exactly one per delivery expected).
 * Options: `--posts N` (default 1000), `--accounts N` (default 100). Not part of `npm test`.
 */
import { parseArgs } from "node:util";
import { createUser } from "../src/domain/account/accounts.ts";
import { upsertConnectedAccount } from "../src/domain/social/accounts.ts";
import { startWorker } from "../src/operations/worker.ts";
import { liveNetworkEnv } from "../test/fakes/live-env.ts";
import { startFakeNetworks } from "../test/fakes/server.ts";
import { connectedXAccount, X_API_HOST, xFake } from "../test/fakes/x.ts";
import { FAKE_APPS } from "../test/fakes/live-env.ts";
import { freshService } from "./fresh-db.ts";

const { values } = parseArgs({ options: { posts: { type: "string" }, accounts: { type: "string" } } });
const POSTS = Number(values.posts ?? 1000);
const ACCOUNTS = Number(values.accounts ?? 100);

function percentile(sorted: number[], p: number): number {
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

async function main() {
  const server = await startFakeNetworks();
  server.fault(
    { host: X_API_HOST, path: /.*/, times: Number.MAX_SAFE_INTEGER },
    { kind: "slow", delayMs: 50 },
  );
  const x = xFake(server, FAKE_APPS.x);
  const service = await freshService("bench_publish", liveNetworkEnv(server, ["x"]));
  const { ctx } = service;
  try {
    const who = await createUser(ctx.db, {
      email: "bench-publish@example.test",
      password: "benchmark password",
      workspace: "Bench",
    });
    const accounts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const user = x.addUser({ username: `bench${i}` });
      const { account } = await upsertConnectedAccount(
        ctx.db,
        ctx.sealer,
        { userId: who.user_id, workspaceId: who.workspace_id },
        connectedXAccount(user),
      );
      accounts.push(account.social_account_id);
    }
    const workers = [
      await startWorker(ctx, { schedules: false }),
      await startWorker(ctx, { schedules: false }),
    ];
    const minute = new Date(Math.ceil((Date.now() + 15_000) / 60_000) * 60_000);
    const before = x.created;
    const posts = await ctx
      .db("posts")
      .insert(
        Array.from({ length: POSTS }, (_, i) => ({
          workspace_id: who.workspace_id,
          user_id: who.user_id,
          type: "text",
          status: "approved",
          caption: `Same minute ${i}`,
        })),
      )
      .returning("id");
    await ctx.db("deliveries").insert(
      posts.map((p, i) => ({
        workspace_id: who.workspace_id,
        user_id: who.user_id,
        post_id: p.id,
        social_account_id: accounts[i % accounts.length],
        status: "pending",
        next_attempt_at: minute,
      })),
    );
    console.error(
      `due at ${minute.toISOString()}, waiting ${Math.round((minute.getTime() - Date.now()) / 1000)} s`,
    );
    for (;;) {
      const [open] = await ctx
        .db("deliveries")
        .whereIn("status", ["pending", "uploading", "processing", "outcome_unknown"])
        .count({ n: "*" });
      if (Number(open?.n) === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (Date.now() - minute.getTime()) / 1000;
    for (const w of workers) await w.stop();
    const rows: Array<{ status: string; published_at: Date | null }> = await ctx
      .db("deliveries")
      .select("status", "published_at");
    const delays = rows
      .filter((r) => r.status === "published" && r.published_at)
      .map((r) => (new Date(r.published_at!).getTime() - minute.getTime()) / 1000)
      .sort((a, b) => a - b);
    console.log(
      JSON.stringify(
        {
          posts: POSTS,
          accounts: ACCOUNTS,
          latency_ms: 50,
          workers: 2,
          seconds_from_scheduled_minute_to_all_published: seconds,
          delivery_poll_seconds: ctx.config.social.deliveryPollSeconds,
          published: delays.length,
          not_published: rows.filter((r) => r.status !== "published").map((r) => r.status),
          x_posts_made: x.created - before,
          delay_from_scheduled_minute_s: {
            p50: percentile(delays, 50),
            p95: percentile(delays, 95),
            max: delays.at(-1),
          },
        },
        null,
        2,
      ),
    );
  } finally {
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
