/**
 * A small cluster for scale tests: `serve` and `worker` processes of the real CLI (src/main.ts) on one
 * database, sharing keys (APP_ENCRYPTION_KEY, SIGNING_KEYS) and media storage (s3rver), behind a round-robin
 * proxy on loopback that plays the load balancer. The proxy forwards each request to the next server in
 * turn and names the server that answered in `x-test-backend`, so a test can prove requests alternate.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import { mkdtemp } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { exportJWK, generateKeyPair } from "jose";
import S3rver from "s3rver";
import { systemClock } from "../../src/context.ts";
import { createSealer, type Sealer } from "../../src/crypto/seal.ts";
import type { Knex } from "../../src/db/knex.ts";
import { type RpcResult, rpc } from "../helpers/mcp-client.ts";
import type { TokenIssuer } from "../helpers/tokens.ts";

export interface ClusterProcess {
  role: "serve" | "worker";
  name: string;
  child: ChildProcess;
  port: number | undefined;
  /** Every stdout/stderr line so far (pino JSON at info level). */
  lines: string[];
}

export interface Cluster {
  /** The proxy's base URL = PUBLIC_BASE_URL of every instance. */
  url: string;
  resource: string;
  processes: ClusterProcess[];
  /** Backend names in the order the proxy used them (one per proxied request). */
  served: Array<{ backend: string; method: string; path: string }>;
  /** Mints connections for this cluster (test/helpers/tokens.ts `connect`): its database and keys. */
  issuer: TokenIssuer;
  /** Seals with the cluster's APP_ENCRYPTION_KEY (e.g. the tokens of a social account a test connects). */
  sealer: Sealer;
  /** Starts one more worker (after a crash test killed one). */
  addWorker(name: string): Promise<ClusterProcess>;
  stop(): Promise<void>;
}

/**
 * Calls tools through the cluster's proxy with `token`: `call(name, args)` asserts the call succeeded and
 * returns its envelope (`structuredContent`, parsed JSON as `rpc` gives it).
 */
export function toolCaller(
  cluster: Pick<Cluster, "resource">,
  token: string,
): (name: string, args: Record<string, unknown>) => Promise<RpcResult["body"]> {
  return async (name, args) => {
    const res = await rpc(cluster.resource, "tools/call", { name, arguments: args }, { token });
    const env = res.body?.result?.structuredContent;
    assert.ok(env && !res.body.result.isError, `${name}: ${res.text}`);
    return env;
  };
}

function waitForLine(p: ClusterProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${p.name} not ready in ${timeoutMs} ms:\n${p.lines.slice(-10).join("\n")}`)),
      timeoutMs,
    );
    const check = () => {
      if (p.lines.some((l) => pattern.test(l))) {
        clearTimeout(timer);
        resolve();
        return true;
      }
      return false;
    };
    if (check()) return;
    const onData = () => {
      if (check()) {
        p.child.stdout?.off("data", onData);
        p.child.stderr?.off("data", onData);
      }
    };
    p.child.stdout?.on("data", onData);
    p.child.stderr?.on("data", onData);
    p.child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${p.name} exited with ${code}:\n${p.lines.slice(-20).join("\n")}`));
    });
  });
}

/** The banner line of a `serve` process, with the port it listens on. */
const LISTENING = /listening on port (\d+)/;

/**
 * The load balancer: forwards each request to the next of `backends` in turn (MCP requests and browser/OAuth
 * requests take turns separately, so that consecutive MCP requests of one client always alternate even while
 * a browser is busy in between), names the backend in `x-test-backend` and records it in `served`.
 */
function roundRobinProxy(backends: ClusterProcess[], served: Cluster["served"]): http.Server {
  const turns = { mcp: 0, web: 0 };
  return http.createServer((req, res) => {
    const lane = req.url === "/mcp" ? "mcp" : "web";
    const backend = backends[turns[lane] % backends.length]!;
    turns[lane] += 1;
    served.push({ backend: backend.name, method: req.method ?? "", path: req.url ?? "" });
    const upstream = http.request(
      { host: "127.0.0.1", port: backend.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, { ...up.headers, "x-test-backend": backend.name });
        up.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "x-test-backend": backend.name });
      res.end();
    });
    req.pipe(upstream);
  });
}

/**
 * Starts `servers` serve processes and `workers` worker processes on `databaseUrl` (already migrated).
 * `env` adds settings for every process.
 */
export async function startCluster(options: {
  databaseUrl: string;
  db: Knex;
  servers: number;
  workers: number;
  env?: Record<string, string>;
}): Promise<Cluster> {
  const s3dir = await mkdtemp(path.join(os.tmpdir(), "smcp-cluster-s3-"));
  const s3 = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: s3dir,
    configureBuckets: [{ name: "media", configs: [] }],
  });
  const s3info: AddressInfo = await s3.run();
  // The proxy listens first, on a port of its own choosing, so that no other server can take its port while
  // the instances start (a port found free and released before use can be taken meanwhile, and a listen
  // that fails would leave the set-up waiting forever).
  const backends: ClusterProcess[] = [];
  const served: Cluster["served"] = [];
  const proxy = roundRobinProxy(backends, served);
  await new Promise<void>((resolve, reject) => {
    proxy.once("error", reject);
    proxy.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "cluster-1", alg: "ES256", use: "sig" };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "smcp-cluster-"));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: options.databaseUrl,
    PUBLIC_BASE_URL: url,
    APP_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    SIGNING_KEYS: JSON.stringify({ keys: [jwk] }),
    DATA_DIR: dataDir,
    MEDIA_STORAGE: "s3",
    S3_BUCKET: "media",
    S3_ENDPOINT: `http://127.0.0.1:${s3info.port}`,
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_REGION: "us-east-1",
    LOG_LEVEL: "info",
    ...options.env,
  };
  const processes: ClusterProcess[] = [];

  async function start(role: "serve" | "worker", name: string): Promise<ClusterProcess> {
    // A server listens on any free port (PORT=0) and names it in its banner.
    const child = spawn(process.execPath, ["src/main.ts", role], {
      env: { ...env, ...(role === "serve" ? { PORT: "0", HOST: "127.0.0.1" } : {}) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const p: ClusterProcess = { role, name, child, port: undefined, lines: [] };
    for (const stream of [child.stdout, child.stderr]) {
      let rest = "";
      stream?.on("data", (chunk: Buffer) => {
        const text = rest + chunk.toString("utf8");
        const parts = text.split("\n");
        rest = parts.pop() ?? "";
        p.lines.push(...parts);
      });
    }
    processes.push(p);
    if (role === "serve") {
      await waitForLine(p, LISTENING, 60_000);
      p.port = Number(p.lines.map((l) => LISTENING.exec(l)?.[1]).find(Boolean));
      backends.push(p);
    } else await waitForLine(p, /operation worker started/, 60_000);
    return p;
  }

  /** Stops the proxy, the instances (SIGTERM, SIGKILL after 10 s) and the media store. */
  async function stop(): Promise<void> {
    await new Promise((r) => proxy.close(r));
    proxy.closeAllConnections();
    await Promise.all(
      processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
            p.child.once("exit", () => resolve());
            p.child.kill("SIGTERM");
            setTimeout(() => p.child.kill("SIGKILL"), 10_000).unref();
          }),
      ),
    );
    await s3.close();
  }

  // One at a time: each boot checks migrations and pg-boss's schema. An instance that does not start stops
  // the others: the set-up fails with what it printed, and leaves nothing running.
  try {
    for (let i = 1; i <= options.servers; i++) await start("serve", `serve-${i}`);
    for (let i = 1; i <= options.workers; i++) await start("worker", `worker-${i}`);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    resource: `${url}/mcp`,
    processes,
    served,
    issuer: {
      ctx: {
        db: options.db,
        config: { resourceUrl: `${url}/mcp`, issuerUrl: url },
        keys: { signingKeys: [jwk] },
        clock: systemClock,
      },
    },
    sealer: createSealer([env.APP_ENCRYPTION_KEY!]),
    addWorker: (name) => start("worker", name),
    stop,
  };
}
