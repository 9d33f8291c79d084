/**
 * Where the time of the hot path goes: reads a V8 CPU profile (`.cpuprofile`) of `bench/run.ts` and prints
 * the self time of the last `--seconds` seconds before the trailing idle teardown (the measured run;
 * default 10) grouped into the stages of a /mcp request, in milliseconds and per request (`--requests`,
 * the run's request count, to divide by).
 *
 *   BENCH_TARGETS=service BENCH_CONNECTIONS=8 node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/run.ts
 *   npx tsx bench/profile-stages.ts /tmp/prof/CPU....cpuprofile --requests 9410
 *
 * A sample belongs to the stage of the code it was taken in (self time): a package or a file of this
 * repository, by the URL of its function (see STAGES). The profile is wall-clock sampled, so a system call
 * that wakes another process (a socket write to PostgreSQL) also carries the time until this process runs
 * again; `idle` is the event loop waiting (for PostgreSQL, for the client). autocannon runs in the same
 * process and is its own line. See bench/README.md "Where the time goes".
 */
import { readFile } from "node:fs/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Stage names by the first pattern that matches a function's URL (or its name, for native frames). */
const STAGES: Array<[string, RegExp]> = [
  ["idle (waiting for I/O)", /^\(idle\)$/],
  ["garbage collection", /^\(garbage collector\)$/],
  ["socket writes (writev: includes the receiver's wake-up)", /^\(writev\)$/],
  [
    "benchmark client (autocannon, its HTTP parser)",
    /node_modules\/(autocannon|http-parser-js|hdr-histogram|reinterval)/,
  ],
  [
    "routing (app.ts fast lane or Express), access log, content negotiation",
    /node_modules\/(express|router|negotiator|accepts|type-is|mime-types|mime-db|content-type|path-to-regexp|finalhandler|on-finished|depd|debug)\/|\/src\/app\.ts/,
  ],
  [
    "JSON body read and parse (src/mcp/body.ts; body-parser, raw-body, iconv-lite)",
    /node_modules\/(body-parser|raw-body|iconv-lite|bytes)\/|\/src\/mcp\/body\.ts|^\(parse\)$/,
  ],
  [
    "bearer token (JWT cache, claims, record checks)",
    /node_modules\/jose\/|\/src\/oauth\/|node:internal\/crypto/,
  ],
  [
    "rate limits (counters)",
    /node_modules\/rate-limiter-flexible\/|\/src\/runtime\/rate-limit\.ts|\/src\/mcp\/(guards|admission)\.ts/,
  ],
  ["MCP endpoint (routes, JSON-RPC, dispatch, reply)", /\/src\/mcp\//],
  [
    "pipeline, handler, output validation",
    /\/src\/(runtime\/(pipeline|envelope)|tools)\/|node_modules\/typebox\/|\/generated\//,
  ],
  ["audit rows", /\/src\/runtime\/audit\.ts/],
  ["knex query builder", /node_modules\/(knex|lodash)\//],
  [
    "pg driver and pools (pg, pg-protocol, tarn, prepared statements)",
    /node_modules\/(pg|pg-protocol|pg-types|pg-pool|tarn|postgres-\w+)\/|\/src\/db\//,
  ],
  [
    "node HTTP server, sockets, streams, timers",
    /^node:|^\((writeUtf8String|writeBuffer|read|utf8Slice|latin1Slice)\)$/,
  ],
];

function stageOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  // Native frames have no URL: V8's own ("(idle)", "(garbage collector)") or a binding ("writev").
  const key = url || (functionName.startsWith("(") ? functionName : `(${functionName})`);
  for (const [name, pattern] of STAGES) if (pattern.test(key)) return name;
  return "other (V8 runtime, microtasks, tsx)";
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
  const option = (name: string, fallback: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  if (!file) throw new Error("usage: profile-stages.ts FILE.cpuprofile [--seconds 10] [--requests N]");
  const seconds = option("seconds", 10);
  const requests = option("requests", 0);
  const profile = JSON.parse(await readFile(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let t = profile.startTime;
  const stamps = profile.timeDeltas.map((d) => {
    t += d;
    return t;
  });
  // The run ends at the last busy second (under 90% idle): the teardown after it is idle time.
  let end = stamps.at(-1) ?? 0;
  const idleIn = (lo: number, hi: number) => {
    let idle = 0;
    let all = 0;
    for (let i = 0; i < stamps.length; i++) {
      const s = stamps[i] ?? 0;
      if (s < lo || s >= hi) continue;
      const us = profile.timeDeltas[i + 1] ?? 0;
      all += us;
      if (byId.get(profile.samples[i] ?? -1)?.callFrame.functionName === "(idle)") idle += us;
    }
    return all === 0 ? 1 : idle / all;
  };
  while (end - 1e6 > profile.startTime && idleIn(end - 1e6, end) > 0.9) end -= 1e6;
  const from = end - seconds * 1e6;
  const totals = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    if ((stamps[i] ?? 0) < from || (stamps[i] ?? 0) >= end) continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(profile.samples[i] ?? -1);
    if (!node) continue;
    const stage = stageOf(node);
    totals.set(stage, (totals.get(stage) ?? 0) + us);
    total += us;
  }
  console.log(`| stage | ms in the last ${seconds} s | share |${requests ? " µs per request |" : ""}`);
  console.log(`|---|---:|---:|${requests ? "---:|" : ""}`);
  for (const [stage, us] of [...totals].sort((a, b) => b[1] - a[1])) {
    const perRequest = requests ? ` ${(us / requests).toFixed(0)} |` : "";
    console.log(
      `| ${stage} | ${(us / 1000).toFixed(0)} | ${((100 * us) / total).toFixed(1)}% |${perRequest}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(`profile-stages: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
