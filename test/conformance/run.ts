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
 * Checks that need the suite's own fixture server (tools such as `test_simple_text`, the prompts and
 * resources it names) are listed, with the reason, in expected-failures-<revision>.yaml; anything else
 * failing fails the run.
 * Needs PostgreSQL (DATABASE_URL, or 127.0.0.1:5432) and Node 24 (run through npm).
 */
import { spawn } from "node:child_process";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { listen, startService } from "./service.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
const REVISIONS = (process.env.CONFORMANCE_REVISIONS ?? "2026-07-28,2025-11-25").split(",");

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
  const proxy = http.createServer();
  const base = `http://127.0.0.1:${await listen(proxy)}`;
  const service = await startService("conformance", base);
  proxy.on(
    "request",
    bearerProxy(service.appPort, service.token).listeners("request")[0] as http.RequestListener,
  );

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
    await service.close();
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
