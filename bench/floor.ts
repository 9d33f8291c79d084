/**
 * `npx tsx bench/floor.ts`: the floor under `npm run bench` on this machine. A bare `node:http` JSON-RPC
 * responder (as bench/run.ts's baseline) that also makes N database round trips one after the other per
 * request, N = 0..3, on a plain pg pool (8 connections), driven by autocannon in the same process (as in
 * bench/run.ts), in two ways:
 *
 * - `sequential`: each request runs its own trivial prepared statement per round trip (`select $1::int + 1`);
 * - `batched`: the requests of one turn of the event loop share one statement per round trip
 *   (src/db/batcher.ts, as the service's admission, batched reads and audit rows do:
 *   `select x + 1 from unnest($1::int[]) x`).
 *
 * No framework, no validation, no logic: what any service making N sequential database round trips per
 * request can reach here at best. Prints req/s, p99 (ms), node CPU µs per request and the ratio to N = 0,
 * at each of `BENCH_CONNECTIONS`.
 *
 * Settings (env): DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; only `select`s run),
 * BENCH_DURATION (seconds per row, default 5), BENCH_CONNECTIONS (default "8,64").
 * See bench/README.md "What bounds the ratio".
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import pg from "pg";
import { createBatcher } from "../src/db/batcher.ts";

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "8,64").split(",").map(Number);
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } });

type RoundTrip = (i: number) => Promise<unknown>;

/** A responder that makes the round trips `trips` one after the other before answering. */
function responder(trips: RoundTrip[]): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number };
      for (const [i, trip] of trips.entries()) await trip(i);
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
  const sequential: RoundTrip = (i) =>
    pool.query({ name: "floor", text: "select $1::int + 1 as x", values: [i] });
  const batched = [0, 1, 2].map((stage) => {
    const batcher = createBatcher(
      async (items: number[]) =>
        (
          await pool.query<{ x: number }>({
            name: `floor-batch-${stage}`,
            text: "select x + 1 as x from unnest($1::int[]) x",
            values: [items],
          })
        ).rows.map((r) => r.x),
      100,
    );
    return (i: number) => batcher.submit(i);
  });
  console.log(
    "| connections | round trips per request | kind | req/s | p99 ms | node CPU µs/req | ratio to 0 |",
  );
  console.log("|---:|---:|---|---:|---:|---:|---:|");
  for (const connections of CONNECTIONS) {
    let zero = 0;
    const cases: Array<[number, string, RoundTrip[]]> = [[0, "-", []]];
    for (let n = 1; n <= 3; n++) {
      cases.push([n, "sequential", Array.from({ length: n }, () => sequential)]);
      cases.push([n, "batched", batched.slice(0, n)]);
    }
    for (const [n, kind, trips] of cases) {
      const server = responder(trips);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const before = process.cpuUsage();
      const r = await autocannon({ url, method: "POST", body: BODY, connections, duration: DURATION });
      const cpu = process.cpuUsage(before);
      // Requests autocannon dropped at the end of the run still finish their round trips: let them.
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeIdleConnections();
      });
      const rps = Math.round(r.requests.average);
      if (n === 0) zero = rps;
      const us = Math.round((cpu.user + cpu.system) / r.requests.total);
      console.log(
        `| ${connections} | ${n} | ${kind} | ${rps} | ${r.latency.p99} | ${us} | ${(rps / zero).toFixed(3)} |`,
      );
    }
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
