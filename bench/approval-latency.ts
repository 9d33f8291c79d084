/**
 * Approval-to-running latency: the time from the owner's approval (`decided_at`, the conditional
 * UPDATE to `approved`) to a worker's claim (`claimed_at`, the UPDATE to `running`), over 200 operations,
 * with one worker and then with two workers, on real Postgres and real pg-boss (LISTEN/NOTIFY wake-ups,
 * polling as the floor). Reports p50/p99/max in milliseconds and the two-worker figures as a ratio of the
 * one-worker baseline measured in the same run.
 *
 *   npx tsx bench/approval-latency.ts            # DATABASE_URL = an admin URL (default local postgres)
 *   BENCH_OPERATIONS=500 BENCH_APPROVERS=8 npx tsx bench/approval-latency.ts
 *
 * A throwaway database is created and dropped. Not part of `npm test`.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { boot } from "../src/bootstrap.ts";
import type { AppContext } from "../src/context.ts";
import { createDb, migrate } from "../src/db/knex.ts";
import { createUser } from "../src/domain/account/accounts.ts";
import { decideOperation } from "../src/operations/approvals.ts";
import { startReview } from "../src/runtime/paths.ts";
import { startQueue } from "../src/operations/queue.ts";
import { setToolLookup } from "../src/operations/tools.ts";
import { startWorker } from "../src/operations/worker.ts";
import type { AuthContext, RegisteredTool } from "../src/tool-contract.ts";

const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 200);
const APPROVERS = Number(process.env.BENCH_APPROVERS ?? 4);

const noop: RegisteredTool = {
  name: "bench_noop",
  title: "Benchmark no-op",
  group: "content",
  description: "does nothing",
  scope: "delete:content",
  access: "write",
  review: true,
  queued: false,
  deferrable: false,
  budget: "delete",
  credits: "none",
  plan: null,
  annotations: {
    title: "Delete product",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: { type: "object" },
  outputSchema: { type: "object" },
  validateInput: () => [],
  validateOutput: () => [],
  handler: {
    async describe() {
      return { summary: "Do nothing", resources: [], destinations: [] };
    },
    async execute() {
      return { data: { ok: true } };
    },
  },
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

async function connection(ctx: AppContext): Promise<AuthContext> {
  const who = await createUser(ctx.db, {
    email: `bench-${randomUUID()}@example.test`,
    password: "benchmark password",
    workspace: "Bench",
  });
  const [client] = await ctx
    .db("oauth_clients")
    .insert({ client_name: "bench", redirect_uris: "[]", grant_types: "[]", response_types: "[]" })
    .returning("client_id");
  const [grant] = await ctx
    .db("oauth_grants")
    .insert({
      user_id: who.user_id,
      workspace_id: who.workspace_id,
      client_id: client.client_id,
      resource: ctx.config.resourceUrl,
      scope: "delete:content read:jobs",
    })
    .returning("id");
  return {
    userId: who.user_id,
    workspaceId: who.workspace_id,
    grantId: grant.id,
    clientId: client.client_id,
    scopes: new Set(["delete:content", "read:jobs"]),
    tokenId: randomUUID(),
  };
}

async function round(ctx: AppContext, auth: AuthContext, workers: number) {
  const started = await Promise.all(
    Array.from({ length: workers }, () => startWorker(ctx, { schedules: false })),
  );
  try {
    const ids: string[] = [];
    for (let i = 0; i < OPERATIONS; i += 1) {
      const env = await ctx.db.transaction((trx) =>
        startReview(
          {
            app: ctx,
            auth,
            requestId: randomUUID(),
            operationId: undefined,
            db: trx,
            signal: new AbortController().signal,
            progress: () => {},
          },
          noop,
          { idempotency_key: randomUUID() },
          trx,
        ),
      );
      ids.push(env.operation_id as string);
    }
    const queue = [...ids];
    await Promise.all(
      Array.from({ length: APPROVERS }, async () => {
        for (let id = queue.shift(); id; id = queue.shift())
          await decideOperation(ctx, id, auth.userId, "approve");
      }),
    );
    const until = Date.now() + Number(process.env.BENCH_WAIT_MS ?? 120_000);
    for (;;) {
      const counted = await ctx
        .db("operations")
        .whereIn("id", ids)
        .whereNot({ state: "succeeded" })
        .count({ n: "*" });
      const n = Number(counted[0]?.n ?? 0);
      if (n === 0) break;
      if (Date.now() > until) throw new Error(`${n} operations did not finish in time`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const rows = await ctx.db("operations").whereIn("id", ids).select("decided_at", "claimed_at", "attempts");
    if (rows.some((r) => r.attempts !== 1)) throw new Error("an operation was claimed more than once");
    const ms = rows.map((r) => r.claimed_at.getTime() - r.decided_at.getTime()).sort((a, b) => a - b);
    return { workers, p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms[ms.length - 1] as number };
  } finally {
    for (const w of started) await w.stop();
  }
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `bench_approval_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const migrator = createDb(url.toString(), 2);
  await migrate(migrator);
  await migrator.destroy();
  const booted = await boot({
    env: {
      DATABASE_URL: url.toString(),
      LOG_LEVEL: "silent",
      DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "smcp-bench-")),
      RATE_LIMIT_DELETE: "100000",
    },
    migrate: false,
  });
  const { ctx } = booted;
  try {
    const q = await startQueue(ctx);
    ctx.queue = q.queue;
    setToolLookup(ctx, (n) => (n === noop.name ? noop : undefined));
    const auth = await connection(ctx);
    const order = process.env.BENCH_ORDER === "21" ? [2, 1] : [1, 2];
    const results = [];
    for (const n of order) results.push(await round(ctx, auth, n));
    const one = results.find((r) => r.workers === 1)!;
    const two = results.find((r) => r.workers === 2)!;
    await q.stop();
    const fmt = (n: number) => n.toFixed(0).padStart(7);
    console.log(
      `approval -> running latency over ${OPERATIONS} operations (${APPROVERS} concurrent approvers), ms`,
    );
    console.log("workers      p50      p99      max   p50 ratio   p99 ratio");
    for (const r of [one, two]) {
      console.log(
        `${String(r.workers).padStart(7)}  ${fmt(r.p50)}  ${fmt(r.p99)}  ${fmt(r.max)}   ${(r.p50 / Math.max(one.p50, 1)).toFixed(2).padStart(9)}   ${(r.p99 / Math.max(one.p99, 1)).toFixed(2).padStart(9)}`,
      );
    }
  } finally {
    await booted.close();
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
