/** A local HTTP server for the guarded fetch tests: routes by path, records every request it receives. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";

export interface LocalServer {
  port: number;
  url: string;
  /** Paths and Host headers of every request received, in order. */
  hits: Array<{ path: string; host: string | undefined }>;
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse, server: LocalServer) => void;

/** Starts a server on 127.0.0.1 with `routes` (path -> handler); 404 otherwise. Closed after the file. */
export async function localServer(routes: Record<string, Route>): Promise<LocalServer> {
  const state: LocalServer = { port: 0, url: "", hits: [] };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    state.hits.push({ path, host: req.headers.host });
    const route = routes[path];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    route(req, res, state);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return state;
}

/** Answers an HTML page. */
export const htmlPage =
  (body: string): Route =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
  };

/** Answers a redirect to `location` (a function of the server for port-dependent targets). */
export const redirectTo =
  (location: string | ((s: LocalServer) => string), status = 302): Route =>
  (_req, res, s) => {
    res.writeHead(status, { location: typeof location === "string" ? location : location(s) }).end();
  };
