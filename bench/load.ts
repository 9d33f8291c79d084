/**
 * `npm run bench:load`: the hot path against its peer and its limit, measured with wrk (bench/wrk.ts), in
 * one run on one machine. Three targets, each its own node process, all answering the same JSON-RPC
 * `tools/call get_profile` POST:
 *
 * - `ours`: the service as `serve` runs (src/main.ts with the node flags of package.json `start` and
 *   deploy/Dockerfile, `SERVE_NODE_FLAGS`), on a fresh migrated database, with an ES256 access token of a
 *   real grant: the whole pipeline (per-IP limit, bearer and token record, per-user budget, the handler's
 *   query, output validation, the audit row).
 * - `peer`: the official MCP SDK's stateless Streamable HTTP server with JWT verification and one query
 *   (bench/peer-sdk.ts) on the same database, with a token of the same user.
 * - `limit`: a bare `node:http` JSON-RPC responder (bench/bare.ts).
 *
 * Rounds alternate the targets (the order rotates each round) at each connection count, so that the
 * machine's load falls on all three alike; the ratios ours/peer and ours/limit are taken within a round.
 * Each row reports req/s, p50/p99/p99.9 (ms), the target process's CPU per request (utime + stime from
 * /proc/{pid}/stat) and that of the benchmark database's PostgreSQL backends (bench/cpu.ts), and the load
 * average (1 min) when the row started.
 *
 * Settings (env): DATABASE_URL (admin URL; default postgres://postgres@127.0.0.1:5432/postgres; a
 * throwaway database is created and dropped), BENCH_DURATION (s per row, default 10), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS ("8,64"), LOAD_OURS_FLAGS (node flags of `ours`, default SERVE_NODE_FLAGS; several
 * sets separated by `|` run one `ours` each, e.g. `--max-semi-space-size=2|`; `--cpu-prof
 * --cpu-prof-dir=DIR` profiles it), LOAD_PEER_FLAGS (node flags of `peer`), LOAD_TARGETS ("ours,peer,limit"), BENCH_SETTLE_MS (0; 11000 also
 * counts the database's transactions per request, bench/cpu.ts). Writes bench/results/load-wrk-<date>.json. See bench/README.md "bench:load".
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { exportJWK, generateKeyPair } from "jose";
import pg from "pg";
import { systemClock } from "../src/context.ts";
import { createDb, migrate } from "../src/db/knex.ts";
import { createUser } from "../src/domain/account/accounts.ts";
import { connect } from "../test/helpers/tokens.ts";
import { CpuProbe } from "./cpu.ts";
import { freePort, SERVE_NODE_FLAGS, startTarget, type Target } from "./load-targets.ts";
import { ensureWrk, machine, runWrk, wrkVersion } from "./wrk.ts";

const SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "8,64").split(",").map(Number);
const OURS_FLAGS = (process.env.LOAD_OURS_FLAGS ?? SERVE_NODE_FLAGS.join(" "))
  .split("|")
  .map((set) => set.split(" ").filter(Boolean));
/** Wait before each CPU reading for idle backends to report their transactions (bench/cpu.ts); 0: not counted. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 0);
const TARGETS = new Set((process.env.LOAD_TARGETS ?? "ours,peer,limit").split(","));
const HUGE = "1000000000";

/** The JSON-RPC body of a tools/call get_profile at `protocol` (request metadata as the version asks). */
function body(protocol: string): string {
  const params: Record<string, unknown> = { name: "get_profile", arguments: {} };
  if (protocol === "2026-07-28")
    params._meta = {
      "io.modelcontextprotocol/protocolVersion": protocol,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
    };
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
}

function headers(protocol: string, token?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": protocol,
    "mcp-method": "tools/call",
    "mcp-name": "get_profile",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

/** CPU seconds (user + system, all threads) of process `pid` so far (/proc/{pid}/stat, 100 ticks a second). */
async function processCpu(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Row {
  round: number;
  connections: number;
  target: string;
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  errors: number;
  node_cpu_us_per_req: number;
  pg_cpu_us_per_req: number | null;
  /** Transactions of the database per request: only with BENCH_SETTLE_MS (null without). */
  xact_per_req: number | null;
  load_1m: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const wrk = ensureWrk();
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dbName = `bench_load_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const db = createDb(dbUrl.toString(), 2);
  const targets: Target[] = [];
  const rows: Row[] = [];
  try {
    await migrate(db);
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: "bench-1", alg: "ES256", use: "sig" };
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "smcp-load-"));
    const who = await createUser(db, {
      email: "bench@example.test",
      password: "bench-password",
      workspace: "Bench",
    });
    for (const [i, flags] of OURS_FLAGS.entries()) {
      if (!TARGETS.has("ours")) break;
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const issuer = {
        ctx: {
          db,
          config: { resourceUrl: `${base}/mcp`, issuerUrl: base },
          keys: { signingKeys: [jwk] },
          clock: systemClock,
        },
      };
      const { token } = await connect(issuer, who, ["read:profile"]);
      const name = OURS_FLAGS.length > 1 ? `ours [${flags.join(" ") || "no flags"}]` : "ours";
      targets.push(
        await startTarget({
          name,
          kind: "ours",
          args: [...flags, "src/main.ts", "serve"],
          env: {
            DATABASE_URL: dbUrl.toString(),
            PUBLIC_BASE_URL: base,
            PORT: String(port),
            HOST: "127.0.0.1",
            APP_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
            SIGNING_KEYS: JSON.stringify({ keys: [jwk] }),
            DATA_DIR: path.join(dataDir, String(i)),
            LOG_LEVEL: "warn",
            MALLOC_ARENA_MAX: "2",
            RATE_LIMIT_MCP_IP: HUGE,
            RATE_LIMIT_READS: HUGE,
          },
          body: body("2026-07-28"),
          headers: headers("2026-07-28", token),
        }),
      );
    }
    if (TARGETS.has("peer")) {
      const issuer = {
        ctx: {
          db,
          config: { resourceUrl: "http://127.0.0.1/mcp", issuerUrl: "http://127.0.0.1" },
          keys: { signingKeys: [jwk] },
          clock: systemClock,
        },
      };
      const { token } = await connect(issuer, who, ["read:profile"]);
      targets.push(
        await startTarget({
          name: "peer",
          kind: "peer",
          args: [...(process.env.LOAD_PEER_FLAGS ?? "").split(" ").filter(Boolean), "bench/peer-sdk.ts"],
          env: {
            DATABASE_URL: dbUrl.toString(),
            PEER_JWK: JSON.stringify(await exportJWK(publicKey)),
            PEER_ISSUER: "http://127.0.0.1",
            PEER_AUDIENCE: "http://127.0.0.1/mcp",
          },
          body: body("2025-11-25"),
          headers: headers("2025-11-25", token),
        }),
      );
    }
    if (TARGETS.has("limit"))
      targets.push(
        await startTarget({
          name: "limit",
          kind: "limit",
          args: ["bench/bare.ts"],
          env: {},
          body: body("2026-07-28"),
          headers: headers("2026-07-28"),
        }),
      );
    const probe = new CpuProbe(admin, dbName);
    const wrkRun = (t: Target, connections: number, seconds: number) =>
      runWrk({ wrk, url: t.url, body: t.body, headers: t.headers, connections, seconds });
    // Warm-up: JIT, pools, prepared statements.
    for (const t of targets) await wrkRun(t, 64, 3);
    for (let round = 1; round <= ROUNDS; round++)
      for (const connections of CONNECTIONS)
        for (let k = 0; k < targets.length; k++) {
          const t = targets[(k + round - 1) % targets.length]!;
          const load = os.loadavg()[0]!;
          const cpu0 = await processCpu(t.pid);
          const pg0 = await probe.read(SETTLE_MS);
          const r = await wrkRun(t, connections, SECONDS);
          const cpu1 = await processCpu(t.pid);
          const pgSpent = CpuProbe.spent(pg0, await probe.read(SETTLE_MS), r.requests);
          const row: Row = {
            round,
            connections,
            target: t.name,
            rps: Math.round(r.rps),
            p50: Number(r.p50.toFixed(2)),
            p99: Number(r.p99.toFixed(2)),
            p999: Number(r.p999.toFixed(2)),
            errors: r.errors,
            node_cpu_us_per_req: Math.round(((cpu1 - cpu0) * 1e6) / r.requests),
            pg_cpu_us_per_req: Number.isNaN(pgSpent.pgUs) ? null : Math.round(pgSpent.pgUs),
            xact_per_req: SETTLE_MS > 0 ? Number(pgSpent.transactions.toFixed(3)) : null,
            load_1m: Number(load.toFixed(2)),
          };
          rows.push(row);
          console.log(JSON.stringify(row));
        }
  } finally {
    for (const t of targets) await t.stop();
    await db.destroy();
    await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
  await report(rows, wrk);
}

/** Prints the table and the ratios and saves the results. */
async function report(rows: Row[], wrk: string): Promise<void> {
  const ratio = (a: Row | undefined, b: Row | undefined) =>
    a && b && b.rps > 0 ? a.rps / b.rps : Number.NaN;
  const ratios = rows
    .filter((r) => r.target.startsWith("ours"))
    .map((r) => {
      const same = (name: string) =>
        rows.find((x) => x.round === r.round && x.connections === r.connections && x.target === name);
      return {
        round: r.round,
        connections: r.connections,
        target: r.target,
        ours_peer: Number(ratio(r, same("peer")).toFixed(2)),
        ours_limit: Number(ratio(r, same("limit")).toFixed(3)),
      };
    });
  console.log(`\nwrk, tools/call get_profile, ${SECONDS} s per row (latency in ms)\n`);
  console.log(
    "| round | connections | target | req/s | p50 | p99 | p99.9 | errors | node CPU µs/req | PostgreSQL CPU µs/req | load (1 min) |",
  );
  console.log("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows)
    console.log(
      `| ${r.round} | ${r.connections} | ${r.target} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.p999} | ${r.errors} | ${r.node_cpu_us_per_req} | ${r.pg_cpu_us_per_req ?? "-"} | ${r.load_1m} |`,
    );
  console.log(
    "\n| connections | target | ours/peer (median, range) | ours/limit (median, range) | p99 median ms |",
  );
  console.log("|---:|---|---|---|---:|");
  const summary = [];
  for (const connections of CONNECTIONS)
    for (const target of [...new Set(ratios.map((r) => r.target))]) {
      const of = ratios.filter((r) => r.connections === connections && r.target === target);
      const p99s = rows.filter((r) => r.connections === connections && r.target === target).map((r) => r.p99);
      const peer = of.map((r) => r.ours_peer);
      const limit = of.map((r) => r.ours_limit);
      const s = {
        connections,
        target,
        ours_peer_median: median(peer),
        ours_limit_median: median(limit),
        p99_median_ms: median(p99s),
      };
      summary.push(s);
      console.log(
        `| ${connections} | ${target} | ${s.ours_peer_median} (${Math.min(...peer)}-${Math.max(...peer)}) | ${s.ours_limit_median} (${Math.min(...limit)}-${Math.max(...limit)}) | ${s.p99_median_ms} |`,
      );
    }
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { encoding: "utf8" });
  const result = {
    date: new Date().toISOString(),
    commit: dirty.trim() ? `${commit} (with uncommitted changes)` : commit,
    machine: machine(),
    node: process.version,
    wrk: wrkVersion(wrk),
    seconds_per_row: SECONDS,
    ours_flags: OURS_FLAGS.map((f) => f.join(" ")),
    load_average_end: os.loadavg().map((l) => Number(l.toFixed(2))),
    summary,
    ratios,
    rows,
  };
  const file = `bench/results/load-wrk-${result.date.slice(0, 10)}.json`;
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nsaved ${file} (commit ${result.commit}, load average ${result.load_average_end.join(" ")})`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench:load: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
