/**
 * Prometheus metrics with prom-client (https://github.com/siimon/prom-client), kept only in a process that
 * serves them (METRICS_PORT set: `enableMetrics`, called by src/bootstrap.ts before anything is counted);
 * until then every function here returns at once and prom-client is not even loaded. The families and what
 * they mean are listed in docs/operations.md "Metrics"; ./collectors.ts adds the ones read at scrape time
 * (queues, the nightly sync, readiness).
 *
 * Label values are bounded sets, never user, workspace, post, account or request ids (service spec 7 rule
 * 7): route templates (never raw paths), tool names of the registry, envelope statuses, the error codes of
 * src/errors.ts, networks, provider and operation names fixed in code, status classes, template names. The
 * callers pass such values; `httpMethod` and `statusClass` fold anything else into `other`.
 *
 * The hot path (`observeHttp`, `observeToolCall`) keeps the label children it has made in nested maps, so an
 * update is a few map lookups, one counter increment and one histogram observation, with no string built.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type * as PromClient from "prom-client";
import { lazyRequire } from "../lazy-require.ts";

const promClient = lazyRequire<typeof PromClient>("prom-client");

/** Prefix of the service's own families. */
export const METRIC_PREFIX = "social_mcp_";

/** Latency buckets of HTTP requests and tool calls, seconds. */
const FAST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Latency buckets of outbound provider calls, seconds (image and video generation take minutes). */
const PROVIDER_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Buckets of the time from a delivery's due time to its publication, seconds (up to two hours). */
const DELIVERY_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200];
/** Buckets of a media render's duration, seconds. */
const RENDER_BUCKETS = [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];
const MIB = 1024 * 1024;
/** Buckets of a media render's peak resident set size, bytes. */
const RSS_BUCKETS = [128, 192, 256, 320, 384, 512, 768, 1024, 1536, 2048].map((m) => m * MIB);

type Counter = PromClient.Counter<string>;
type Histogram = PromClient.Histogram<string>;
type CounterChild = PromClient.Counter.Internal;
type HistogramChild = PromClient.Histogram.Internal<string>;

interface Families {
  registry: PromClient.Registry;
  httpRequests: Counter;
  httpDuration: Histogram;
  toolCalls: Counter;
  toolDuration: Histogram;
  rateLimited: Counter;
  operations: Counter;
  approvalsCreated: Counter;
  approvalsDecided: Counter;
  deliveries: Counter;
  dueToPublished: Histogram;
  providerCalls: Counter;
  providerDuration: Histogram;
  renderDuration: Histogram;
  renderPeakRss: Histogram;
}

let families: Families | undefined;

/** A counter child and a histogram child of the same labels. */
type Pair = [CounterChild, HistogramChild];

/** Label children by three keys (created once per label set). */
type Tree<T> = Map<string, Map<string, Map<string | number, T>>>;
const httpChildren: Tree<Pair> = new Map();
const toolChildren: Tree<Pair> = new Map();

function leaf<T>(
  tree: Tree<T>,
  a: string,
  b: string,
  c: string | number,
  make: (a: string, b: string, c: string | number) => T,
): T {
  let byA = tree.get(a);
  if (byA === undefined) {
    byA = new Map();
    tree.set(a, byA);
  }
  let byB = byA.get(b);
  if (byB === undefined) {
    byB = new Map();
    byA.set(b, byB);
  }
  let t = byB.get(c);
  if (t === undefined) {
    t = make(a, b, c);
    byB.set(c, t);
  }
  return t;
}

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The method as a label value: one of the standard methods, else `other`. */
export function httpMethod(method: string | undefined): string {
  return method !== undefined && HTTP_METHODS.has(method) ? method : "other";
}

/** An HTTP status as its class (`2xx` ... `5xx`), or `error` when there was no answer. */
export function statusClass(status: number | undefined): string {
  if (status === undefined || !Number.isInteger(status) || status < 100 || status > 599) return "error";
  return `${Math.floor(status / 100)}xx`;
}

/**
 * Turns metrics on for this process (idempotent): creates the registry with the default process and Node
 * metrics (CPU, memory, heap, event-loop lag, GC; prom-client `collectDefaultMetrics`) and the service's
 * families. @returns the process's registry.
 */
export function enableMetrics(): PromClient.Registry {
  if (families) return families.registry;
  const { Registry, Counter, Histogram, collectDefaultMetrics } = promClient();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const counter = (name: string, help: string, labelNames: string[]) =>
    new Counter({ name: METRIC_PREFIX + name, help, labelNames, registers: [registry] });
  const histogram = (name: string, help: string, labelNames: string[], buckets: number[]) =>
    new Histogram({ name: METRIC_PREFIX + name, help, labelNames, buckets, registers: [registry] });
  families = {
    registry,
    httpRequests: counter("http_requests_total", "HTTP requests answered, by route template and status.", [
      "method",
      "route",
      "status",
    ]),
    httpDuration: histogram(
      "http_request_duration_seconds",
      "Time from an HTTP request's arrival to its answer's end, seconds.",
      ["method", "route", "status"],
      FAST_BUCKETS,
    ),
    toolCalls: counter(
      "tool_calls_total",
      "MCP tools/call requests that reached the tool pipeline, by tool, envelope status and error code.",
      ["tool", "status", "error_code"],
    ),
    toolDuration: histogram(
      "tool_call_duration_seconds",
      "Time a tools/call spent in the tool pipeline, seconds.",
      ["tool", "status"],
      FAST_BUCKETS,
    ),
    rateLimited: counter(
      "rate_limited_total",
      "Calls refused because a per-user budget or the per-IP limit of the MCP endpoint was exhausted.",
      ["budget"],
    ),
    operations: counter("operations_total", "Operations entering a state, by tool and state.", [
      "tool",
      "state",
    ]),
    approvalsCreated: counter("approvals_created_total", "Approval requests created, by tool.", ["tool"]),
    approvalsDecided: counter(
      "approvals_decided_total",
      "Approval requests decided: approved, declined (also stale or no longer authorized) or expired.",
      ["tool", "decision"],
    ),
    deliveries: counter(
      "deliveries_total",
      "Delivery steps that ended in published, failed or outcome_unknown, by network.",
      ["network", "outcome"],
    ),
    dueToPublished: histogram(
      "delivery_due_to_published_seconds",
      "Time from a delivery's due time (its schedule, or its creation) to its publication, seconds.",
      ["network"],
      DELIVERY_BUCKETS,
    ),
    providerCalls: counter(
      "provider_calls_total",
      "Outbound calls to the AI providers and the social networks, by provider, operation and status class.",
      ["provider", "operation", "status_class"],
    ),
    providerDuration: histogram(
      "provider_call_duration_seconds",
      "Time of an outbound provider call until its answer's headers, seconds.",
      ["provider", "operation", "status_class"],
      PROVIDER_BUCKETS,
    ),
    renderDuration: histogram(
      "media_render_duration_seconds",
      "Time of a media render (a carousel's slides, a video), by template, seconds.",
      ["template"],
      RENDER_BUCKETS,
    ),
    renderPeakRss: histogram(
      "media_render_peak_rss_bytes",
      "The service process's largest resident set size seen during a media render, by template, bytes.",
      ["template"],
      RSS_BUCKETS,
    ),
  };
  return registry;
}

/** The process's registry while metrics are on, else undefined. */
export function metricsRegistry(): PromClient.Registry | undefined {
  return families?.registry;
}

/** True while metrics are on (METRICS_PORT is set). */
export function metricsEnabled(): boolean {
  return families !== undefined;
}

function makeHttpPair(method: string, route: string, status: string | number): Pair {
  const f = families as Families;
  const s = String(status);
  return [f.httpRequests.labels(method, route, s), f.httpDuration.labels(method, route, s)];
}

/**
 * Counts one answered HTTP request. `method` from `httpMethod`, `route` a route template (never the raw
 * path), `status` the answer's status code, `seconds` its duration.
 */
export function observeHttp(method: string, route: string, status: number, seconds: number): void {
  if (families === undefined) return;
  const pair = leaf(httpChildren, method, route, status, makeHttpPair);
  pair[0].inc();
  pair[1].observe(seconds);
}

function makeToolPair(tool: string, status: string, code: string | number): Pair {
  const f = families as Families;
  return [f.toolCalls.labels(tool, status, String(code)), f.toolDuration.labels(tool, status)];
}

/**
 * Counts one tools/call: `tool` a registry name (or `unknown`), `status` the envelope status (or `rejected`
 * for a call refused before it ran: an unknown tool, a missing scope), `errorCode` an error code of
 * src/errors.ts, `unknown_tool` or `none`, `seconds` the time in the pipeline.
 */
export function observeToolCall(tool: string, status: string, errorCode: string, seconds: number): void {
  if (families === undefined) return;
  const pair = leaf(toolChildren, tool, status, errorCode, makeToolPair);
  pair[0].inc();
  pair[1].observe(seconds);
}

/** Counts a call refused by `budget` (read, write, ai, approval, delete, or `mcp_ip` for the per-IP limit). */
export function countRateLimited(budget: string): void {
  families?.rateLimited.labels(budget).inc();
}

/** Counts `tool`'s operation entering `state` (an operation state of service spec 3.1). */
export function countOperation(tool: string, state: string): void {
  families?.operations.labels(tool, state).inc();
}

/** Counts an approval request created for `tool`. */
export function countApprovalCreated(tool: string): void {
  families?.approvalsCreated.labels(tool).inc();
}

/** Counts an approval request of `tool` decided: `approved`, `declined` or `expired`. */
export function countApprovalDecided(tool: string, decision: "approved" | "declined" | "expired"): void {
  families?.approvalsDecided.labels(tool, decision).inc();
}

/**
 * Counts a delivery step of `network` that ended in `outcome`; for `published`, `dueToPublishedSeconds` is
 * the time from its due time to now.
 */
export function observeDelivery(
  network: string,
  outcome: "published" | "failed" | "outcome_unknown",
  dueToPublishedSeconds?: number | undefined,
): void {
  if (families === undefined) return;
  families.deliveries.labels(network, outcome).inc();
  if (outcome === "published" && dueToPublishedSeconds !== undefined)
    families.dueToPublished.labels(network).observe(Math.max(0, dueToPublishedSeconds));
}

/** Counts one outbound call of `provider` (`ai_text`, `ai_image`, `video`, a network) and `operation`. */
export function observeProviderCall(
  provider: string,
  operation: string,
  status: number | undefined,
  seconds: number,
): void {
  if (families === undefined) return;
  const cls = statusClass(status);
  families.providerCalls.labels(provider, operation, cls).inc();
  families.providerDuration.labels(provider, operation, cls).observe(seconds);
}

/**
 * `fetch(url, init)` counted as a call of `provider` and `operation` (its status class, or `error` when it
 * threw, and the time to the answer's headers). Without metrics, plain `fetch`.
 * @returns fetch's Response; @throws what fetch throws.
 */
export async function measuredFetch(
  provider: string,
  operation: string,
  url: string | URL,
  init?: RequestInit,
): Promise<Response> {
  if (families === undefined) return fetch(url, init);
  const started = performance.now();
  let status: number | undefined;
  try {
    const res = await fetch(url, init);
    status = res.status;
    return res;
  } finally {
    observeProviderCall(provider, operation, status, (performance.now() - started) / 1000);
  }
}

/** The provider and operation outbound calls made inside `inProviderScope` are counted under. */
interface ProviderScope {
  provider: string;
  operation: string;
}

const providerScopes = new AsyncLocalStorage<ProviderScope>();

/** The provider scope of the running code (`inProviderScope`), if any. */
export function currentProviderScope(): ProviderScope | undefined {
  return providerScopes.getStore();
}

/**
 * Wraps the async methods `methods` (method name -> operation label) of `target` so that the outbound calls
 * each one makes are counted under `provider` and that operation (`currentProviderScope`, read by the
 * network adapters' HTTP, src/providers/social/http.ts). The wrapper's prototype is `target`, so every other
 * member is `target`'s own. Without metrics, `target` itself.
 */
export function measureMethods<T extends object>(
  target: T,
  provider: string,
  methods: Record<string, string>,
): T {
  if (families === undefined) return target;
  const wrapped = Object.create(target) as Record<string, unknown>;
  for (const [name, operation] of Object.entries(methods)) {
    const fn = (target as Record<string, unknown>)[name];
    if (typeof fn !== "function") continue;
    const scope: ProviderScope = { provider, operation };
    wrapped[name] = (...args: unknown[]) => providerScopes.run(scope, () => fn.apply(target, args));
  }
  return wrapped as T;
}

/** How often a render's resident set size is sampled, milliseconds. */
const RSS_SAMPLE_MS = 100;

/**
 * Runs the render `fn` of `template` (a carousel design, a video template) and records its duration and
 * the largest resident set size of this process seen while it ran (sampled every 100 ms; ffmpeg runs in a
 * process of its own, bounded by FFMPEG_MAX_MEMORY_BYTES). Without metrics, `fn()`.
 * @returns what `fn` returns; rethrows what it throws (the render is counted all the same).
 */
export async function measureRender<T>(template: string, fn: () => Promise<T>): Promise<T> {
  if (families === undefined) return fn();
  const f = families;
  const started = performance.now();
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, RSS_SAMPLE_MS);
  sampler.unref();
  try {
    return await fn();
  } finally {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    f.renderDuration.labels(template).observe((performance.now() - started) / 1000);
    f.renderPeakRss.labels(template).observe(peak);
  }
}
