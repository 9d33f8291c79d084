/**
 * HTTP server lifecycle: listen, then drain on shutdown (open connections finish, idle ones close).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppContext } from "./context.ts";
import { createRequestListener } from "./app.ts";

export interface RunningServer {
  server: http.Server;
  port: number;
  /** Stops accepting connections and waits for in-flight requests (at most `graceSeconds`). */
  close(graceSeconds?: number): Promise<void>;
}

/** Listens on `ctx.config.port` (0 = any free port) and `ctx.config.host`. */
export async function startServer(ctx: AppContext, server = http.createServer()): Promise<RunningServer> {
  server.on("request", createRequestListener(ctx));
  server.keepAliveTimeout = 5_000;
  if (!server.listening) {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(ctx.config.port, ctx.config.host, () => resolve());
    });
  }
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: (graceSeconds = 10) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceSeconds * 1000);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
