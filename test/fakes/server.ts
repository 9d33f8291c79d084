/**
 * The shared router of the provider-shaped fake networks (test only). Adapters reach it through
 * `SOCIAL_HTTP_OVERRIDE=http://127.0.0.1:PORT`, which rewrites `https://{host}{path}` to
 * `http://127.0.0.1:PORT/{host}{path}`; this server splits the first path segment back off as the host and
 * dispatches to the routes a network fake (instagram.ts, facebook.ts, tiktok.ts) registered for that host.
 *
 * Fault injection (`fault()`), matched in order before the route runs:
 * - `status`: answer an error (the network's own error body) without doing the work;
 * - `rate_limit`: answer 429 with `Retry-After` (seconds) without doing the work;
 * - `network_rate_limit`: the network's own rate-limit answer, its wait in its own headers (rate-limits.ts);
 * - `slow`: wait `delayMs` before running the route;
 * - `lost`: run the route (the work is done and counted), then destroy the socket without a response, as a
 *   timeout or a dropped connection looks to the client.
 * Counters (`count`/`counters`) let tests assert how often a side effect really happened (publishes).
 *
 * Contracts (`useContract`): every request to a host with a contract is checked against the provider's
 * description before faults and routes run, and every routed answer against its response schema
 * (contract.ts, contract-guard.ts); a violation is answered in the provider's error shape and fails the test.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";
import type { Contract, ContractRequest, Operation } from "./contract.ts";
import { ContractGuard } from "./contract-guard.ts";
import { networkRateLimit } from "./rate-limits.ts";

/** One request as a fake route sees it (host split off the path). */
export interface FakeRequest {
  method: string;
  host: string;
  /** Path after the host, without the query, e.g. `/v21.0/1784/media`. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Named segments of the matched route pattern (`:id` -> params.id). */
  params: Record<string, string>;
  /**
   * The descriptions (test/contracts/{name}.json) the request is valid against, for a fake that answers in
   * the shape of the one it matched (X has two); empty for a host without a contract.
   */
  descriptions: string[];
  /** Query plus an urlencoded body merged (Graph API reads both). */
  form(): URLSearchParams;
  /** The body parsed as JSON (undefined when empty or not JSON). */
  json(): any;
  /** The bearer token of the Authorization header, or `access_token` of the query/form. */
  token(): string | undefined;
}

/** What a route answers. `body` objects are sent as JSON; `raw` is sent verbatim (e.g. JSON with big numbers). */
export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string | Buffer;
}

export type FakeRoute = (req: FakeRequest) => FakeResponse | Promise<FakeResponse>;

/** Wraps the routes of one host (`FakeNetworkServer.wrap`): `next` runs the matched route. */
export type FakeWrapper = (req: FakeRequest, next: () => Promise<FakeResponse>) => Promise<FakeResponse>;

export type FaultKind =
  | { kind: "status"; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: "rate_limit"; retryAfterSeconds: number; body?: unknown }
  | { kind: "network_rate_limit"; seconds: number }
  | { kind: "slow"; delayMs: number }
  | { kind: "lost" };

export interface FaultRule {
  method?: string;
  host: string;
  /** Exact path (version prefix `/vNN.N` ignored) or a pattern tested against it. */
  path: string | RegExp;
  /** How many matching requests the fault applies to (default 1). */
  times?: number;
}

/** A recorded request (no body, no headers: tokens stay out of test output). */
export interface FakeHit {
  method: string;
  host: string;
  path: string;
  status: number | "lost";
}

interface RouteEntry {
  method: string;
  host: string;
  segments: string[];
  handler: FakeRoute;
}

interface ActiveFault extends FaultRule {
  left: number;
  action: FaultKind;
}

/** Graph API style version prefix (`/v21.0/...`), ignored by routing like the real hosts accept it. */
const VERSION = /^\/v\d+\.\d+(?=\/)/;

export class FakeNetworkServer {
  port = 0;
  /** `http://127.0.0.1:PORT`: the value of SOCIAL_HTTP_OVERRIDE. */
  url = "";
  readonly hits: FakeHit[] = [];
  private readonly routes: RouteEntry[] = [];
  private readonly wrappers = new Map<string, FakeWrapper>();
  private readonly faults: ActiveFault[] = [];
  private readonly counts = new Map<string, number>();
  private readonly contracts = new Map<
    string,
    { contract: Contract; nodeOf?: (id: string) => string | undefined }
  >();
  /** The contract check's findings (contract-guard.ts): a test provoking a refusal takes them. */
  readonly guard = new ContractGuard();
  private readonly server: http.Server;

  constructor() {
    this.server = http.createServer((req, res) => {
      void this.handle(req, res);
    });
  }

  /** Starts listening on 127.0.0.1 (a free port); stopped after the test file. */
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
    after(() => this.close());
    this.guard.watch();
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The address a client reaches `https://{host}{path}` at through the override. */
  urlFor(host: string, pathAndQuery: string): string {
    return `${this.url}/${host}${pathAndQuery}`;
  }

  /** Registers `handler` for `method host pattern`; pattern segments starting with `:` are parameters. */
  route(method: string, host: string, pattern: string, handler: FakeRoute): void {
    this.routes.push({ method, host, segments: pattern.split("/").filter(Boolean), handler });
  }

  /**
   * Runs every routed request of `host` through `wrapper` (one per host; a later one replaces it): it may
   * answer itself (a network's rate limit) or call `next` and add headers (its usage headers).
   */
  wrap(host: string, wrapper: FakeWrapper): void {
    this.wrappers.set(host, wrapper);
  }

  /**
   * Checks every request to `host` against `contract` (the provider's description); `nodeOf` names the Graph
   * node type of an id (Graph hosts: operations are per node type).
   */
  useContract(host: string, contract: Contract, nodeOf?: (id: string) => string | undefined): void {
    this.contracts.set(host, { contract, ...(nodeOf ? { nodeOf } : {}) });
  }

  /** The contract violations kept since the last call; taking them stops them failing the test. */
  takeViolations() {
    return this.guard.takeViolations();
  }

  /** Injects a fault for the next `times` (default 1) matching requests. */
  fault(rule: FaultRule, action: FaultKind): void {
    this.faults.push({ ...rule, left: rule.times ?? 1, action });
  }

  /** Removes every pending fault. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Adds 1 to the counter `name` (e.g. `instagram.publishes`). */
  count(name: string, by = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + by);
  }

  /** The current value of counter `name` (0 when never counted). */
  counter(name: string): number {
    return this.counts.get(name) ?? 0;
  }

  /** Hits for a host whose path matches `path` (exact after the version prefix, or a pattern). */
  hitsFor(host: string, path: string | RegExp, method?: string): FakeHit[] {
    return this.hits.filter(
      (h) => h.host === host && pathMatches(path, h.path) && (!method || h.method === method),
    );
  }

  private takeFault(method: string, host: string, path: string): FaultKind | undefined {
    const i = this.faults.findIndex(
      (f) => f.left > 0 && f.host === host && (!f.method || f.method === method) && pathMatches(f.path, path),
    );
    if (i < 0) return undefined;
    const f = this.faults[i]!;
    f.left -= 1;
    if (f.left === 0) this.faults.splice(i, 1);
    return f.action;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const target = new URL(req.url ?? "/", "http://fake");
    const [, host = "", ...rest] = target.pathname.split("/");
    const path = `/${rest.join("/")}`;
    const method = req.method ?? "GET";
    const unversioned = path.replace(VERSION, "");
    const hit: FakeHit = { method, host, path: unversioned, status: 0 };
    this.hits.push(hit);

    const send = (r: FakeResponse) => {
      const status = r.status ?? 200;
      hit.status = status;
      if (r.raw !== undefined) {
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...r.headers });
        res.end(r.raw);
      } else if (r.body === undefined) {
        res.writeHead(status, r.headers).end();
      } else {
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...r.headers });
        res.end(JSON.stringify(r.body));
      }
    };

    const checked = this.contracts.get(host);
    const contractReq: ContractRequest = {
      method,
      path: unversioned,
      query: target.searchParams,
      headers: req.headers,
      body,
    };
    let operation: Operation | undefined;
    let valid: Operation[] = [];
    if (checked) {
      const r = await this.guard.request(checked.contract, contractReq, checked.nodeOf);
      if (r.refusal) return send(r.refusal);
      operation = r.operation;
      valid = r.valid ?? [];
      if (!operation && !checked.nodeOf)
        return send({ status: 500, body: { error: "contract check matched nothing" } });
    }

    const fault = this.takeFault(method, host, unversioned);
    if (fault?.kind === "status")
      return send({ status: fault.status, body: fault.body, headers: fault.headers });
    if (fault?.kind === "rate_limit") {
      return send({
        status: 429,
        headers: { "retry-after": String(fault.retryAfterSeconds) },
        body: fault.body ?? { error: { message: "Too many requests", code: 429 } },
      });
    }
    if (fault?.kind === "network_rate_limit") return send(networkRateLimit(host, fault.seconds));
    if (fault?.kind === "slow") await new Promise((r) => setTimeout(r, fault.delayMs));

    const match = this.match(method, host, unversioned);
    let answer: FakeResponse;
    if (!match) {
      answer = { status: 404, body: { error: { message: `fake ${host} has no route ${method} ${path}` } } };
    } else {
      const fakeReq = makeRequest(
        method,
        host,
        unversioned,
        target.searchParams,
        req.headers,
        body,
        match.params,
        [...new Set(valid.map((op) => op.doc))],
      );
      try {
        const wrapper = this.wrappers.get(host);
        const handler = match.route.handler;
        answer = await (wrapper ? wrapper(fakeReq, async () => handler(fakeReq)) : handler(fakeReq));
      } catch (err) {
        answer = {
          status: 500,
          body: { error: { message: `fake route failed: ${(err as Error).message}` } },
        };
      }
    }
    if (fault?.kind === "lost") {
      hit.status = "lost";
      req.socket.destroy();
      return;
    }
    send(answer);
    // The answer is checked once sent: compiling a response schema the first time costs no client any time.
    if (checked && operation && !fault) {
      let json: unknown = answer.body;
      if (answer.raw !== undefined) {
        try {
          json = JSON.parse(String(answer.raw));
        } catch {
          json = undefined; // not JSON (an XML or text answer): no JSON schema applies
        }
      }
      this.guard.response(checked.contract, valid, contractReq, answer.status ?? 200, json);
    }
  }

  private match(
    method: string,
    host: string,
    path: string,
  ): { route: RouteEntry; params: Record<string, string> } | undefined {
    const segs = path.split("/").filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method || route.host !== host || route.segments.length !== segs.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segs.length; i++) {
        const want = route.segments[i]!;
        const got = decodeURIComponent(segs[i]!);
        if (want.startsWith(":")) params[want.slice(1)] = got;
        else if (want !== got) {
          ok = false;
          break;
        }
      }
      if (ok) return { route, params };
    }
    return undefined;
  }
}

function pathMatches(rule: string | RegExp, path: string): boolean {
  return typeof rule === "string" ? rule === path : rule.test(path);
}

function makeRequest(
  method: string,
  host: string,
  path: string,
  query: URLSearchParams,
  headers: http.IncomingHttpHeaders,
  body: Buffer,
  params: Record<string, string>,
  descriptions: string[],
): FakeRequest {
  const type = String(headers["content-type"] ?? "");
  const form = () => {
    const merged = new URLSearchParams(query);
    if (type.startsWith("application/x-www-form-urlencoded")) {
      for (const [k, v] of new URLSearchParams(body.toString("utf8"))) merged.append(k, v);
    } else if (type.startsWith("application/json") && body.length > 0) {
      try {
        const parsed = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
        for (const [k, v] of Object.entries(parsed)) {
          merged.append(k, typeof v === "string" ? v : JSON.stringify(v));
        }
      } catch {}
    }
    return merged;
  };
  return {
    method,
    host,
    path,
    query,
    headers,
    body,
    params,
    descriptions,
    form,
    json() {
      if (body.length === 0) return undefined;
      try {
        return JSON.parse(body.toString("utf8"));
      } catch {
        return undefined;
      }
    },
    token() {
      const auth = String(headers.authorization ?? "");
      if (/^Bearer /i.test(auth)) return auth.slice(7).trim();
      return form().get("access_token") ?? undefined;
    },
  };
}

/** Starts a fresh router server (one per test file is usual; every network fake attaches to it). */
export async function startFakeNetworks(): Promise<FakeNetworkServer> {
  return new FakeNetworkServer().start();
}

/** Downloads `url` (the fakes pull media like the networks do); throws with the status on failure. */
export async function pullMedia(url: string): Promise<{ bytes: Buffer; contentType: string }> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`media download answered ${res.status}`);
  return {
    bytes: Buffer.from(await res.arrayBuffer()),
    contentType: res.headers.get("content-type") ?? "",
  };
}

/** The media kind of `bytes` by magic number: what the networks check (JPEG only for IG images). */
export function sniff(bytes: Buffer): "jpeg" | "png" | "webp" | "mp4" | "unknown" {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10])))
    return "png";
  if (
    bytes.length >= 12 &&
    bytes.toString("latin1", 0, 4) === "RIFF" &&
    bytes.toString("latin1", 8, 12) === "WEBP"
  )
    return "webp";
  if (bytes.length >= 12 && bytes.toString("latin1", 4, 8) === "ftyp") return "mp4";
  return "unknown";
}

/** A random id of `digits` decimal digits (Meta ids are long decimal strings). */
export function decimalId(digits = 17): string {
  let s = String(1 + Math.floor(Math.random() * 9));
  while (s.length < digits) s += String(Math.floor(Math.random() * 10));
  return s;
}
