/**
 * `npm run conformance`: runs the official MCP conformance suite (@modelcontextprotocol/conformance
 * 0.2.0-alpha.12, server mode) against the real service, for 2026-07-28 and 2025-11-25.
 *
 * The suite cannot do OAuth, so it talks to a loopback proxy that adds `Authorization: Bearer <token>`
 * (a real token of a real grant with every scope) and forwards everything else untouched, Host and Origin
 * included, so the DNS-rebinding checks reach the service's own Host/Origin guards. The service is
 * configured with the proxy's address as its public URL and no CORS allow-list: the check
 * `dns-rebinding-protection:localhost-host-valid-accepted` sends the service's own origin, which the Origin
 * guard accepts as same-origin.
 *
 * Checks that need the suite's own fixture server (tools such as `test_simple_text`, prompts, resources)
 * are listed, with the reason, in expected-failures-<revision>.yaml; anything else failing fails the run.
 * Needs PostgreSQL (DATABASE_URL, or 127.0.0.1:5432) and Node 24 (run through npm).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { boot } from "../../src/bootstrap.ts";
import { createUser } from "../../src/domain/account/accounts.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { startServer } from "../../src/server.ts";
import type { TestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
const REVISIONS = (process.env.CONFORMANCE_REVISIONS ?? "2026-07-28,2025-11-25").split(",");

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** A loopback proxy to `targetPort` that adds the bearer token and keeps every other header (Host included). */
function bearerProxy(targetPort: number, token: string): http.Server {
  return http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: "127.0.0.1",
        port: targetPort,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
    res.on("close", () => upstream.destroy());
  });
}

function run(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: "inherit", env: process.env });
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<number> {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dbName = `conformance_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;

  const proxy = http.createServer();
  const proxyPort = await listen(proxy);
  const base = `http://127.0.0.1:${proxyPort}`;
  const appServer = http.createServer();
  const appPort = await listen(appServer);
  const booted = await boot({
    env: {
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "smcp-conformance-")),
      DATABASE_URL: dbUrl.toString(),
      PUBLIC_BASE_URL: base,
      PORT: String(appPort),
      RATE_LIMIT_MCP_IP: "100000",
      RATE_LIMIT_READS: "100000",
      RATE_LIMIT_WRITES: "100000",
      RATE_LIMIT_AI: "100000",
      RATE_LIMIT_APPROVAL: "100000",
      RATE_LIMIT_DELETE: "100000",
    },
  });
  const running = await startServer(booted.ctx, appServer);
  const who = await createUser(booted.ctx.db, {
    email: "conformance@example.test",
    password: "conformance-password",
    workspace: "Conformance",
    plan: "pro",
  });
  const { token } = await connect({ ctx: booted.ctx } as TestApp, who, [...ALL_SCOPES]);
  proxy.on("request", bearerProxy(appPort, token).listeners("request")[0] as http.RequestListener);

  let failed = 0;
  try {
    for (const revision of REVISIONS) {
      console.log(`\n=== conformance ${revision} against ${base}/mcp ===`);
      const code = await run("npx", [
        "--yes",
        SUITE,
        "server",
        "--url",
        `${base}/mcp`,
        "--suite",
        "all",
        "--spec-version",
        revision,
        "--expected-failures",
        path.join(HERE, `expected-failures-${revision}.yaml`),
        "--output-dir",
        path.join(os.tmpdir(), `smcp-conformance-results-${revision}`),
      ]);
      if (code !== 0) failed += 1;
    }
  } finally {
    proxy.closeAllConnections();
    proxy.close();
    await running.close(1);
    await booted.close();
    await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`conformance: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
