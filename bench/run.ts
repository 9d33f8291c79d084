/**
 * `npm run bench`: throughput and latency of `tools/call get_profile` (2026-07-28, valid bearer token) on
 * the real service, side by side with a bare node:http JSON-RPC responder measured in the same run, at 8
 * and 64 connections (autocannon). The service path includes everything a real call pays: per-IP limit,
 * token validation (signature + grant/membership lookup on every request), per-user budget, the handler's
 * query, output validation and the audit insert committed before the response, all on Postgres.
 *
 * Besides req/s and latency, each run reports the CPU time spent per request: by this node process (the
 * service or the baseline, plus autocannon, which runs in the same process) and by the PostgreSQL backends
 * of the benchmark's database (from /proc, so only when PostgreSQL runs on this machine), and the
 * database's transactions per request (pg_stat_database; every statement outside a transaction is one, so
 * this counts the round trips that commit).
 *
 * Settings (env): DATABASE_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (default "8,64"), BENCH_TARGETS
 * (default "baseline,layers,service,stages"; "service" alone for profiling it:
 * `node --cpu-prof --import tsx bench/run.ts`; "layers": the hot path built up from the service's parts,
 * bench/layers.ts; "stages": the database round trips one at a time, bench/stages.ts).
 * See bench/README.md.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { performance } from "node:perf_hooks";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { boot } from "../src/bootstrap.ts";
import { createUser } from "../src/domain/account/accounts.ts";
import { startServer } from "../src/server.ts";
import type { TestApp } from "../test/helpers/app.ts";
import { connect } from "../test/helpers/tokens.ts";
import { bareResponder } from "./bare.ts";
import { CpuProbe, type CpuReading } from "./cpu.ts";
import type { StageRow } from "./stages.ts";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "8,64").split(",").map(Number);
const TARGETS = new Set((process.env.BENCH_TARGETS ?? "baseline,layers,service,stages").split(","));
const HUGE = "1000000000";

const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: "get_profile",
    arguments: {},
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
    },
  },
});

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "get_profile",
};

interface Row {
  target: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  /** 99.9th percentile latency (ms). */
  p999: number;
  /** Event loop utilization of this process during the run (0-1): below 1, it waited for I/O. */
  elu: number;
  errors: number;
  /** CPU microseconds per request of this node process (service or baseline, plus autocannon). */
  nodeUs: number;
  /** CPU microseconds per request of the benchmark database's PostgreSQL backends (NaN: not measurable). */
  pgUs: number;
  /** Transactions of the benchmark's database per request. */
  xactPerReq: number;
}

/**
 * Runs autocannon against `url`; CPU and transactions are the difference between the reading `before`
 * and one taken after the run (returned, to serve as the next run's `before`).
 */
async function measure(
  target: string,
  url: string,
  connections: number,
  headers: Record<string, string>,
  probe: CpuProbe,
  before: CpuReading,
): Promise<{ row: Row; after: CpuReading }> {
  const elu = performance.eventLoopUtilization();
  const r = await autocannon({ url, method: "POST", headers, body: BODY, connections, duration: DURATION });
  const busy = performance.eventLoopUtilization(elu).utilization;
  const after = await probe.read(CpuProbe.SETTLE_MS);
  const spent = CpuProbe.spent(before, after, r.requests.total);
  const row = {
    target,
    connections,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    p999: r.latency.p99_9,
    elu: busy,
    errors: r.errors + r.timeouts + r.non2xx,
    nodeUs: Math.round(spent.nodeUs),
    pgUs: Math.round(spent.pgUs),
    xactPerReq: spent.transactions,
  };
  return { row, after };
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dbName = `bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;

  const appServer = http.createServer();
  const port = await listen(appServer);
  const booted = await boot({
    env: {
      LOG_LEVEL: "silent",
      DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "smcp-bench-")),
      DATABASE_URL: dbUrl.toString(),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      PORT: String(port),
      RATE_LIMIT_MCP_IP: HUGE,
      RATE_LIMIT_READS: HUGE,
    },
  });
  const running = await startServer(booted.ctx, appServer);
  const bare = bareResponder();
  const barePort = await listen(bare);
  const layers: Array<[string, http.Server, number]> = [];
  if (TARGETS.has("layers")) {
    // Loaded only when asked for (it names the service's own modules, layer by layer).
    const { layerServers } = await import("./layers.ts");
    for (const [name, server] of layerServers(booted.ctx, "/mcp"))
      layers.push([name, server, await listen(server)]);
  }
  const rows: Row[] = [];
  let stages: StageRow[] = [];
  try {
    const who = await createUser(booted.ctx.db, {
      email: "bench@example.test",
      password: "bench-password",
      workspace: "Bench",
    });
    const { token } = await connect({ ctx: booted.ctx } as TestApp, who, ["read:profile"]);
    const auth = { ...HEADERS, authorization: `Bearer ${token}` };
    // Warm up both (JIT, pool connections) and check the service answers correctly.
    const check = await fetch(booted.ctx.config.resourceUrl, { method: "POST", headers: auth, body: BODY });
    const payload = (await check.json()) as { result?: { structuredContent?: { status?: string } } };
    if (payload.result?.structuredContent?.status !== "succeeded")
      throw new Error(`get_profile failed: ${JSON.stringify(payload)}`);
    await autocannon({
      url: booted.ctx.config.resourceUrl,
      method: "POST",
      headers: auth,
      body: BODY,
      connections: 8,
      duration: 2,
    });
    const probe = new CpuProbe(admin, dbName);
    if (TARGETS.has("stages")) {
      // Loaded only when asked for (it names the service's own modules, stage by stage).
      const { measureStages } = await import("./stages.ts");
      stages = await measureStages(booted.ctx, token, probe);
    }
    let reading = await probe.read(CpuProbe.SETTLE_MS);
    const run = async (target: string, url: string, connections: number, headers: Record<string, string>) => {
      const { row, after } = await measure(target, url, connections, headers, probe, reading);
      rows.push(row);
      reading = after;
    };
    for (const connections of CONNECTIONS) {
      if (TARGETS.has("baseline"))
        await run("node:http baseline", `http://127.0.0.1:${barePort}/mcp`, connections, HEADERS);
      for (const [name, , layerPort] of layers)
        await run(name, `http://127.0.0.1:${layerPort}/mcp`, connections, auth);
      if (TARGETS.has("service"))
        await run("social-mcp get_profile", booted.ctx.config.resourceUrl, connections, auth);
    }
  } finally {
    bare.close();
    for (const [, server] of layers) server.close();
    // Requests whose sockets autocannon dropped at the end of a run still finish their queries: let them.
    const pool = (booted.ctx.db.client as { pool?: { numPendingAcquires(): number; numUsed(): number } })
      .pool;
    for (let i = 0; i < 100 && pool && pool.numPendingAcquires() + pool.numUsed() > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    await running.close(5);
    await booted.close();
    await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
  console.log(`\ntools/call get_profile, ${DURATION}s per run (latency in ms)\n`);
  console.log(
    "| target | connections | req/s | p50 | p99 | p99.9 | errors | req/s vs baseline | node CPU µs/req | event loop busy | PostgreSQL CPU µs/req | transactions/req |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const base = rows.find((b) => b.target === "node:http baseline" && b.connections === r.connections);
    const ratio = base && base.rps > 0 ? (r.rps / base.rps).toFixed(3) : "-";
    const pgUs = Number.isNaN(r.pgUs) ? "-" : String(r.pgUs);
    console.log(
      `| ${r.target} | ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.p999} | ${r.errors} | ${ratio} | ${r.nodeUs} | ${r.elu.toFixed(2)} | ${pgUs} | ${r.xactPerReq.toFixed(2)} |`,
    );
  }
  if (stages.length > 0) {
    console.log("\nDatabase round trips, one stage at a time (sequential calls; per call)\n");
    console.log("| stage | µs (wall) | node CPU µs | PostgreSQL CPU µs |");
    console.log("|---|---:|---:|---:|");
    for (const s of stages) {
      const pgUs = Number.isNaN(s.pgUs) ? "-" : s.pgUs.toFixed(0);
      console.log(`| ${s.stage} | ${s.wallUs.toFixed(0)} | ${s.nodeUs.toFixed(0)} | ${pgUs} |`);
    }
  }
  console.log(
    `\nload average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
