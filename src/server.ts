/**
 * HTTP server lifecycle: listen, then drain on shutdown (open connections finish, idle ones close).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppContext } from "./context.ts";
import { createRequestHandling } from "./app.ts";

export interface RunningServer {
  server: http.Server;
  port: number;
  /** Stops accepting connections and waits for in-flight requests (at most `graceSeconds`). */
  close(graceSeconds?: number): Promise<void>;
}

/**
 * Listens on `ctx.config.port` (0 = any free port) and `ctx.config.host`, on `given` when passed (a server the
 * caller created, perhaps already listening), else on a new server built with the app's request and response
 * classes (./app.ts `createRequestHandling`).
 */
export async function startServer(ctx: AppContext, given?: http.Server): Promise<RunningServer> {
  const handling = createRequestHandling(ctx);
  const server = given ?? http.createServer(handling.serverOptions);
  server.on("request", handling.listener);
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
