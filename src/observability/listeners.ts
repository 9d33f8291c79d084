/**
 * The listeners of their own (docs/operations.md "Health, metrics and traces"), plain node:http servers
 * with nothing of the application mounted:
 * - HEALTH_PORT: `GET|HEAD /healthz` and `/readyz` (./health.ts), on HOST like the main port: the one
 *   HTTP surface of a `worker`, the port the Docker image's HEALTHCHECK asks in every command;
 * - METRICS_PORT: `GET /metrics` in the Prometheus text format (version 0.0.4), on METRICS_HOST (default
 *   127.0.0.1: metrics describe the whole service and are not for the public).
 * Anything else is 404. Both stay open during a shutdown's drain (the health listener answers 503 then) and
 * close last.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppContext } from "../context.ts";
import { scrapeRegistry } from "./collectors.ts";
import { healthOf, readinessStatus } from "./health.ts";
import { enableMetrics } from "./metrics.ts";

/** A listener: the port it got (0 asks for any free port), and `close()`. */
export interface Listener {
  port: number;
  close(): Promise<void>;
}

/**
 * Answers `/healthz` and `/readyz` of `ctx`'s process on `req`, or returns false when `req` is for another
 * path (the caller answers it). Only GET and HEAD; no body is read.
 */
export function answerHealth(ctx: AppContext, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  const path = (req.url ?? "").split("?")[0];
  if (path !== "/healthz" && path !== "/readyz") return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("Method not allowed");
    return true;
  }
  const send = (status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "content-length": Buffer.byteLength(text),
    });
    res.end(req.method === "HEAD" ? undefined : text);
  };
  if (path === "/healthz") send(200, { status: "ok" });
  else
    void healthOf(ctx)
      .readiness()
      .then((report) => send(readinessStatus(report), report));
  return true;
}

function listen(server: http.Server, port: number, host: string | undefined): Promise<Listener> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Starts the health listener of `ctx` on `port` (HOST, like the main port). @throws the listen error. */
export function startHealthListener(ctx: AppContext, port: number): Promise<Listener> {
  const server = http.createServer((req, res) => {
    if (!answerHealth(ctx, req, res)) res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  });
  server.keepAliveTimeout = 5_000;
  return listen(server, port, ctx.config.host);
}

/**
 * Starts the metrics listener of `ctx` on `port` and `host` (config METRICS_PORT, METRICS_HOST): the
 * process's families (./metrics.ts, turned on here if they were not) and the scrape-time ones of `ctx`
 * (./collectors.ts). @throws the listen error.
 */
export async function startMetricsListener(ctx: AppContext, port: number, host: string): Promise<Listener> {
  const processRegistry = enableMetrics();
  const scraped = scrapeRegistry(ctx);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("Method not allowed");
      return;
    }
    Promise.all([processRegistry.metrics(), scraped.metrics()]).then(
      ([own, read]) => {
        const text = `${own}\n${read}`;
        res.writeHead(200, { "content-type": processRegistry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      () => res.writeHead(500, { "content-type": "text/plain" }).end("metrics could not be collected"),
    );
  });
  return listen(server, port, host);
}
