/**
 * `npx tsx bench/floor.ts`: the floor under `npm run bench` on this machine. A bare `node:http` JSON-RPC
 * responder (as bench/run.ts's baseline) that also runs N trivial prepared statements (`select $1::int + 1`)
 * one after the other per request on a plain pg pool (8 connections), for N = 0..3, driven by autocannon at
 * 8 connections in the same process (as in bench/run.ts). No framework, no validation, no logic: what any
 * service making N sequential database round trips per request can reach here at best. Prints req/s, p99
 * (ms), node CPU µs per request and the ratio to N = 0.
 *
 * Settings (env): DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; only `select`s run),
 * BENCH_DURATION (seconds per N, default 8). See bench/README.md "What remains".
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import pg from "pg";

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } });

/** A responder that runs `statements` prepared selects on `pool` before answering. */
function responder(pool: pg.Pool, statements: number): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number };
      const client = await pool.connect();
      try {
        for (let i = 0; i < statements; i++)
          await client.query({ name: "floor", text: "select $1::int + 1 as x", values: [i] });
      } finally {
        client.release();
      }
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: msg.id,
        result: { structuredContent: { ok: true } },
      });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
}

async function main(): Promise<void> {
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    max: 8,
  });
  console.log("| statements per request | req/s | p99 ms | node CPU µs/req | ratio to 0 |");
  console.log("|---:|---:|---:|---:|---:|");
  let zero = 0;
  for (let n = 0; n <= 3; n++) {
    const server = responder(pool, n);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const before = process.cpuUsage();
    const r = await autocannon({ url, method: "POST", body: BODY, connections: 8, duration: DURATION });
    const cpu = process.cpuUsage(before);
    server.close();
    const rps = Math.round(r.requests.average);
    if (n === 0) zero = rps;
    const us = Math.round((cpu.user + cpu.system) / r.requests.total);
    console.log(`| ${n} | ${rps} | ${r.latency.p99} | ${us} | ${(rps / zero).toFixed(3)} |`);
  }
  await pool.end();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`floor: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
