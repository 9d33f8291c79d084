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

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
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
  const proxyPort = await freePort();
  const url = `http://127.0.0.1:${proxyPort}`;
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
    const port = role === "serve" ? await freePort() : undefined;
    const child = spawn(process.execPath, ["src/main.ts", role], {
      env: { ...env, ...(port ? { PORT: String(port), HOST: "127.0.0.1" } : {}) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const p: ClusterProcess = { role, name, child, port, lines: [] };
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
    await waitForLine(p, role === "serve" ? /listening on port/ : /operation worker started/, 60_000);
    return p;
  }

  // One at a time: each boot checks migrations and pg-boss's schema.
  for (let i = 1; i <= options.servers; i++) await start("serve", `serve-${i}`);
  for (let i = 1; i <= options.workers; i++) await start("worker", `worker-${i}`);

  const backends = processes.filter((p) => p.role === "serve");
  const served: Cluster["served"] = [];
  // MCP requests and browser/OAuth requests take turns separately, so that consecutive MCP requests of one
  // client always alternate even while a browser is busy in between.
  const turns = { mcp: 0, web: 0 };
  const proxy = http.createServer((req, res) => {
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
  await new Promise<void>((r) => proxy.listen(proxyPort, "127.0.0.1", r));

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
    async stop() {
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
    },
  };
}
