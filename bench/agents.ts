/**
 * `npm run bench:agents`: 200 simulated agents for 60 s against 2 `serve` and 2 `worker` processes on one
 * PostgreSQL and one S3 store (s3rver), behind a round-robin proxy (test/scale/cluster.ts). Each agent is
 * its own user with its own connection, product and sandbox account, and mixes reads (get_profile,
 * list_products, list_content), drafts (create_text_post), generate_carousel, and publish_post followed by
 * its approval through the approval page (a browser session's form POST). Prints and saves throughput,
 * p50/p95/p99 per tool, errors by code (only `rate_limited` is expected: the per-user budgets of service
 * spec 8 apply to every agent), and the RSS of every process before the load, after a 15 s warm-up and at
 * the end (growth = end against warm-up).
 *
 * All agents come from 127.0.0.1 through one proxy, so the per-IP limits (MCP 240/min and browser pages
 * 30/min per client address, made for real clients) are raised for this run; every per-user budget stays
 * at its default.
 * Settings (env): DATABASE_URL (admin URL), LOAD_AGENTS (200), LOAD_SECONDS (60). Results:
 * bench/results/agents-<date>.json and bench/README.md.
 */
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import pg from "pg";
import { createDb, migrate } from "../src/db/knex.ts";
import { createUser } from "../src/domain/account/accounts.ts";
import { grantCredits } from "../src/domain/account/credits.ts";
import { connectSocialAccount } from "../src/domain/social/accounts.ts";
import { rpc } from "../test/helpers/mcp-client.ts";
import { connect } from "../test/helpers/tokens.ts";
import { browserSession, postDecision } from "../test/operations/helpers.ts";
import { startCluster } from "../test/scale/cluster.ts";

const AGENTS = Number(process.env.LOAD_AGENTS ?? 200);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);

interface Sample {
  tool: string;
  ms: number;
  code: string;
}

async function rssKb(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dbName = `bench_load_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const db = createDb(url.toString(), 10);
  await migrate(db);
  const cluster = await startCluster({
    databaseUrl: url.toString(),
    db,
    servers: 2,
    workers: 2,
    env: { LOG_LEVEL: "info", RATE_LIMIT_MCP_IP: "1000000", RATE_LIMIT_BROWSER: "1000000" },
  });
  try {
    console.log(`setting up ${AGENTS} agents`);
    const agents = await Promise.all(
      Array.from({ length: AGENTS }, async (_, i) => {
        const ids = await createUser(db, {
          email: `agent${i}-${randomUUID().slice(0, 6)}@load.test`,
          password: "correct horse battery staple",
          workspace: `Agent ${i}`,
          plan: "pro",
        });
        await grantCredits(db, ids.user_id, 10_000, "bench:grant");
        const account = await connectSocialAccount(
          db,
          undefined,
          { userId: ids.user_id, workspaceId: ids.workspace_id },
          { network: "facebook", displayName: `Agent ${i}`, handle: `agent${i}` }, // Facebook takes text posts
        );
        const { token } = await connect(cluster.issuer, ids, [
          "read:profile",
          "read:products",
          "create:products",
          "read:content",
          "create:content",
          "create:carousels",
          "publish:content",
          "read:jobs",
        ]);
        const session = await browserSession({ db }, ids.user_id);
        return {
          ids,
          token,
          account: account.social_account_id,
          session,
          productId: "",
          postIds: [] as string[],
        };
      }),
    );
    const samples: Sample[] = [];
    const call = async (agent: (typeof agents)[number], tool: string, args: Record<string, unknown>) => {
      const t0 = performance.now();
      const res = await rpc(
        cluster.resource,
        "tools/call",
        { name: tool, arguments: args },
        {
          token: agent.token,
          validate: false,
        },
      );
      const ms = performance.now() - t0;
      const result = res.body?.result;
      const code =
        res.status !== 200
          ? `http_${res.status}`
          : result?.isError
            ? String(result.structuredContent?.error?.code)
            : "ok";
      samples.push({ tool, ms, code });
      return result?.structuredContent;
    };
    for (const agent of agents) {
      const product = await call(agent, "create_product", {
        name: "Load test product",
        description: "A product for the load test.",
        idempotency_key: randomUUID(),
      });
      agent.productId = product?.data?.product_id;
    }
    const formats = await call(agents[0]!, "list_carousel_formats", {});
    const designId = formats?.data?.designs?.[0]?.design_id;
    samples.length = 0;

    const processes = cluster.processes.map((p) => ({ name: p.name, pid: p.child.pid }));
    const rssBefore = await Promise.all(processes.map((p) => rssKb(p.pid)));
    const until = Date.now() + SECONDS * 1000;
    const started = performance.now();
    // Growth is judged from the end of a warm-up (caches, JIT, pools and font loading fill up in the first
    // seconds of real traffic), against the end of the run.
    const WARMUP_SECONDS = Math.min(15, SECONDS / 4);
    let rssStart = rssBefore;
    const warm = new Promise<void>((resolve) =>
      setTimeout(async () => {
        rssStart = await Promise.all(processes.map((p) => rssKb(p.pid)));
        resolve();
      }, WARMUP_SECONDS * 1000),
    );
    await Promise.all(
      agents.map(async (agent) => {
        while (Date.now() < until) {
          const r = Math.random();
          if (r < 0.55) {
            const read = ["get_profile", "list_products", "list_content"][Math.floor(Math.random() * 3)]!;
            await call(agent, read, {});
          } else if (r < 0.8) {
            const post = await call(agent, "create_text_post", {
              caption: `Load test draft ${randomUUID()}`,
              status: "draft",
              idempotency_key: randomUUID(),
            });
            if (post?.data?.post_id) agent.postIds.push(post.data.post_id);
          } else if (r < 0.9) {
            await call(agent, "generate_carousel", {
              product_id: agent.productId,
              slide_count: 6,
              design_id: designId,
              idempotency_key: randomUUID(),
            });
          } else if (agent.postIds.length > 0) {
            const postId = agent.postIds.shift();
            const env = await call(agent, "publish_post", {
              post_id: postId,
              social_account_ids: [agent.account],
              idempotency_key: randomUUID(),
            });
            if (env?.status === "approval_required") {
              const t0 = performance.now();
              const res = await postDecision(cluster, env.operation_id, agent.session, "approve");
              samples.push({
                tool: "approval (browser POST)",
                ms: performance.now() - t0,
                code: res.status === 303 ? "ok" : `http_${res.status}`,
              });
            }
          }
          await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    await warm;
    const rssEnd = await Promise.all(processes.map((p) => rssKb(p.pid)));

    const byTool = new Map<string, Sample[]>();
    for (const s of samples) byTool.set(s.tool, [...(byTool.get(s.tool) ?? []), s]);
    const tools = [...byTool.entries()].sort().map(([tool, list]) => {
      const ms = list.map((s) => s.ms).sort((a, b) => a - b);
      return {
        tool,
        calls: list.length,
        p50_ms: Math.round(quantile(ms, 0.5)),
        p95_ms: Math.round(quantile(ms, 0.95)),
        p99_ms: Math.round(quantile(ms, 0.99)),
      };
    });
    const errors: Record<string, number> = {};
    for (const s of samples) if (s.code !== "ok") errors[s.code] = (errors[s.code] ?? 0) + 1;
    const rss = processes.map((p, i) => ({
      process: p.name,
      before_load_mb: Math.round(rssBefore[i]! / 1024),
      after_warmup_mb: Math.round(rssStart[i]! / 1024),
      end_mb: Math.round(rssEnd[i]! / 1024),
      growth: rssStart[i] ? Number((rssEnd[i]! / rssStart[i]! - 1).toFixed(3)) : null,
    }));
    const report = {
      date: new Date().toISOString(),
      machine: `${(await import("node:os")).cpus().length} cores, ${Math.round((await import("node:os")).totalmem() / 2 ** 30)} GiB, node ${process.version}`,
      agents: AGENTS,
      seconds: Number(elapsed.toFixed(1)),
      requests: samples.length,
      throughput_per_s: Number((samples.length / elapsed).toFixed(1)),
      tools,
      errors,
      unexpected_errors: Object.keys(errors).filter((c) => c !== "rate_limited"),
      rss,
    };
    console.table(tools);
    console.log(JSON.stringify({ ...report, tools: undefined }, null, 2));
    const file = `bench/results/agents-${report.date.slice(0, 10)}.json`;
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`saved ${file}`);
  } finally {
    await cluster.stop();
    await db.destroy();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
