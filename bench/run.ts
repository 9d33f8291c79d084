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
 * (default "baseline,service"; "service" alone for profiling it: `node --cpu-prof --import tsx bench/run.ts`).
 * See bench/README.md.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { boot } from "../src/bootstrap.ts";
import { createUser } from "../src/domain/account/accounts.ts";
import { startServer } from "../src/server.ts";
import type { TestApp } from "../test/helpers/app.ts";
import { connect } from "../test/helpers/tokens.ts";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "8,64").split(",").map(Number);
const TARGETS = new Set((process.env.BENCH_TARGETS ?? "baseline,service").split(","));
const HUGE = "1000000000";
/** Linux clock ticks per second (`getconf CLK_TCK`), the unit of utime/stime in /proc/{pid}/stat. */
const CLK_TCK = 100;

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

/** The baseline: parses the JSON-RPC body and answers a constant CallToolResult, nothing else. */
function bareResponder(): http.Server {
  const result = {
    resultType: "complete",
    content: [{ type: "text", text: '{"status":"succeeded"}' }],
    structuredContent: { status: "succeeded" },
  };
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number };
      const body = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
}

interface Row {
  target: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU microseconds per request of this node process (service or baseline, plus autocannon). */
  nodeUs: number;
  /** CPU microseconds per request of the benchmark database's PostgreSQL backends (NaN: not measurable). */
  pgUs: number;
  /** Transactions of the benchmark's database per request. */
  xactPerReq: number;
}

/** Committed and rolled-back transactions of `dbName` so far (pg_stat_database, flushed by idle backends). */
async function transactions(admin: pg.Client, dbName: string): Promise<number> {
  // Backends report their counts when idle, at most once a second: wait for the last ones.
  await new Promise((r) => setTimeout(r, 1500));
  await admin.query("select pg_stat_clear_snapshot()");
  const { rows } = await admin.query<{ n: string }>(
    "select xact_commit + xact_rollback as n from pg_stat_database where datname = $1",
    [dbName],
  );
  return Number(rows[0]?.n ?? 0);
}

/** CPU seconds (user + system) of the PostgreSQL backends connected to `dbName`, by pid. */
async function backendCpu(admin: pg.Client, dbName: string): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1", [
    dbName,
  ]);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
    if (!stat) continue;
    // Fields after the command name (which may contain spaces): utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    cpu.set(pid, (Number(fields[11]) + Number(fields[12])) / CLK_TCK);
  }
  return cpu;
}

/** Where the CPU time of one run goes: node (this process) and the database's backends. */
interface CpuProbe {
  admin: pg.Client;
  dbName: string;
}

async function measure(
  target: string,
  url: string,
  connections: number,
  headers: Record<string, string>,
  probe: CpuProbe,
): Promise<Row> {
  const xactBefore = await transactions(probe.admin, probe.dbName);
  const pgBefore = await backendCpu(probe.admin, probe.dbName);
  const nodeBefore = process.cpuUsage();
  const r = await autocannon({ url, method: "POST", headers, body: BODY, connections, duration: DURATION });
  const node = process.cpuUsage(nodeBefore);
  const pgAfter = await backendCpu(probe.admin, probe.dbName);
  const xactAfter = await transactions(probe.admin, probe.dbName);
  const requests = r.requests.total;
  let pgSeconds = 0;
  for (const [pid, seconds] of pgAfter) pgSeconds += seconds - (pgBefore.get(pid) ?? 0);
  return {
    target,
    connections,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
    nodeUs: Math.round((node.user + node.system) / requests),
    pgUs: pgAfter.size > 0 ? Math.round((pgSeconds * 1e6) / requests) : Number.NaN,
    xactPerReq: (xactAfter - xactBefore) / requests,
  };
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
  const rows: Row[] = [];
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
    const probe = { admin, dbName };
    for (const connections of CONNECTIONS) {
      if (TARGETS.has("baseline"))
        rows.push(
          await measure(
            "node:http baseline",
            `http://127.0.0.1:${barePort}/mcp`,
            connections,
            HEADERS,
            probe,
          ),
        );
      if (TARGETS.has("service"))
        rows.push(
          await measure("social-mcp get_profile", booted.ctx.config.resourceUrl, connections, auth, probe),
        );
    }
  } finally {
    bare.close();
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
    "| target | connections | req/s | p50 | p99 | errors | req/s vs baseline | node CPU µs/req | PostgreSQL CPU µs/req | transactions/req |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const base = rows.find((b) => b.target === "node:http baseline" && b.connections === r.connections);
    const ratio = base && base.rps > 0 ? (r.rps / base.rps).toFixed(3) : "-";
    const pgUs = Number.isNaN(r.pgUs) ? "-" : String(r.pgUs);
    console.log(
      `| ${r.target} | ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${ratio} | ${r.nodeUs} | ${pgUs} | ${r.xactPerReq.toFixed(2)} |`,
    );
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
