/**
 * Starting OpenTelemetry tracing with the official Node SDK (`@opentelemetry/sdk-node`,
 * https://opentelemetry.io/docs/languages/js/getting-started/nodejs/) when the standard environment
 * variables ask for it (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/):
 * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER` (`otlp`,
 * `console`; `none` or `OTEL_SDK_DISABLED=true` keep it off). The OTLP/HTTP exporter speaks
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or
 * `http/json`); endpoint, headers, timeout, batch (`OTEL_BSP_*`), sampler (`OTEL_TRACES_SAMPLER`), service name
 * and resource come from the same variables, read by the SDK. Only traces: the SDK's metrics and logs
 * pipelines are not started (metrics are Prometheus's, ./metrics.ts; logs are pino's JSON lines).
 *
 * Instrumentations: `http` (incoming requests and outgoing node:http, without /healthz, /readyz and
 * /metrics), `undici` (every `fetch`: the networks, the AI providers), `pg` (every SQL statement inside a
 * traced request or job; pg-boss's idle polling outside any span is left out), `express` (routers and
 * handlers, which give the server span its route template). They patch modules as these are first
 * required, so the SDK must start before the service's modules load: src/main.ts imports ./register.ts first,
 * and tracing costs nothing when off because none of the SDK's packages is even loaded then (they are
 * `require`d here, on start).
 *
 * Every span passes through `RedactingExporter` before it leaves the process: URL queries and fragments are
 * cut from URL attributes, request and response headers, bodies, query parameters and connection strings are
 * dropped, exception events keep their type only and span statuses lose their message (service spec 7
 * rule 7: no token, prompt, caption, URL query or body in a span).
 */
import { createRequire } from "node:module";
import type { Attributes, AttributeValue } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace";
import { ConfigError } from "../config/index.ts";
import { setTracer, TRACER_NAME } from "./tracing.ts";

const require = createRequire(import.meta.url);

type Env = Record<string, string | undefined>;

/** A started SDK: `flush()` exports what is buffered, `shutdown()` flushes and stops it (idempotent). */
export interface StartedTracing {
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Thrown for an OTEL_* value the service does not support; names the variable. */
export class TracingConfigError extends ConfigError {}

const list = (v: string | undefined) =>
  (v ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/**
 * Whether `env` asks for traces: an OTLP endpoint or an `OTEL_TRACES_EXPORTER` other than `none`, and not
 * `OTEL_SDK_DISABLED=true`.
 */
export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = list(env.OTEL_TRACES_EXPORTER);
  if (exporters.includes("none")) return false;
  return (
    exporters.length > 0 || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}

let started: StartedTracing | undefined;

/**
 * Starts the SDK for `env` (once per process; later calls return the same) and turns the service's own spans
 * on (./tracing.ts `tracer`).
 * @throws TracingConfigError for an exporter or protocol the service does not support (`zipkin`, `grpc`).
 */
export function startTracing(env: Env = process.env): StartedTracing {
  if (started) return started;
  // The settings are checked before any of the SDK's packages is loaded.
  const names = list(env.OTEL_TRACES_EXPORTER);
  const exporters = names.length > 0 ? names : ["otlp"];
  for (const name of exporters)
    if (name !== "console" && name !== "otlp")
      throw new TracingConfigError(
        "OTEL_TRACES_EXPORTER",
        `"${name.slice(0, 40)}" is not supported; use otlp or console (or none)`,
      );
  const protocol = otlpProtocol(env);
  const { NodeSDK } = require("@opentelemetry/sdk-node") as typeof import("@opentelemetry/sdk-node");
  const { BatchSpanProcessor, SimpleSpanProcessor, ConsoleSpanExporter } =
    require("@opentelemetry/sdk-trace") as typeof import("@opentelemetry/sdk-trace");
  const { HttpInstrumentation } =
    require("@opentelemetry/instrumentation-http") as typeof import("@opentelemetry/instrumentation-http");
  const { UndiciInstrumentation } =
    require("@opentelemetry/instrumentation-undici") as typeof import("@opentelemetry/instrumentation-undici");
  const { PgInstrumentation } =
    require("@opentelemetry/instrumentation-pg") as typeof import("@opentelemetry/instrumentation-pg");
  const { ExpressInstrumentation, ExpressLayerType } =
    require("@opentelemetry/instrumentation-express") as typeof import("@opentelemetry/instrumentation-express");
  const { trace } = require("@opentelemetry/api") as typeof import("@opentelemetry/api");

  const processors: SpanProcessor[] = exporters.map((name) =>
    name === "console"
      ? new SimpleSpanProcessor({ exporter: new RedactingExporter(new ConsoleSpanExporter()) })
      : new BatchSpanProcessor({
          exporter: new RedactingExporter(otlpExporter(protocol)),
          ...batchOptions(env),
        }),
  );
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: "social-mcp" }),
    spanProcessors: processors,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)(\?|$)/.test(req.url ?? ""),
      }),
      new UndiciInstrumentation(),
      // Statements outside any span are pg-boss's polling and the pools' housekeeping: not traced.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    ],
  });
  sdk.start();
  // The instrumentations patch a module when it is required after they are enabled: load the instrumented
  // modules now, before the service's own modules import them (src/main.ts imports ./register.ts first).
  for (const id of ["node:http", "node:https", "express", "pg"]) require(id);
  setTracer(trace.getTracer(TRACER_NAME));
  const flush = async () => {
    await Promise.all(processors.map((p) => p.forceFlush()));
  };
  let stopping: Promise<void> | undefined;
  started = {
    flush,
    shutdown() {
      stopping ??= sdk.shutdown().finally(() => setTracer(undefined));
      return stopping;
    },
  };
  return started;
}

/**
 * The batch processor's settings from `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_EXPORT_TIMEOUT` (milliseconds),
 * `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`; the SDK's defaults for those unset.
 */
function batchOptions(env: Env) {
  const num = (name: string) => {
    const v = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(v) && v >= 0 ? v : undefined;
  };
  const options = {
    scheduledDelayMillis: num("OTEL_BSP_SCHEDULE_DELAY"),
    exportTimeoutMillis: num("OTEL_BSP_EXPORT_TIMEOUT"),
    maxQueueSize: num("OTEL_BSP_MAX_QUEUE_SIZE"),
    maxExportBatchSize: num("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"),
  };
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/** The OTLP/HTTP trace exporter of `protocol`. */
function otlpExporter(protocol: "http/json" | "http/protobuf"): SpanExporter {
  if (protocol === "http/json") {
    const { OTLPTraceExporter } =
      require("@opentelemetry/exporter-trace-otlp-http") as typeof import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } =
    require("@opentelemetry/exporter-trace-otlp-proto") as typeof import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter();
}

/**
 * The OTLP protocol `env` names for traces (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, default `http/protobuf`).
 * @throws TracingConfigError for any other than `http/protobuf` and `http/json` (`grpc` is not supported).
 */
function otlpProtocol(env: Env): "http/json" | "http/protobuf" {
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    "http/protobuf"
  )
    .trim()
    .toLowerCase();
  if (protocol === "http/json" || protocol === "http/protobuf") return protocol;
  throw new TracingConfigError(
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
      ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
      : "OTEL_EXPORTER_OTLP_PROTOCOL",
    `"${protocol.slice(0, 40)}" is not supported; use http/protobuf or http/json`,
  );
}

/** Attributes whose value is a URL or a request target: kept without their query and fragment. */
const URL_KEYS = new Set(["url.full", "http.url", "http.target", "url.original", "http.request.url"]);
/** Attributes never exported: queries, headers, bodies, statement parameters, connection strings. */
const DROPPED =
  /^(url\.query|url\.fragment|http\.(request|response)\.(header|body)|db\.query\.parameter|db\.connection_string|db\.statement\.parameters)/;

/** `value` without what follows a `?` or `#`. */
const withoutQuery = (value: AttributeValue): AttributeValue =>
  typeof value === "string" ? value.replace(/[?#].*$/s, "") : value;

/**
 * `attributes` as they may leave the process: URL attributes without their query, the attributes of
 * `DROPPED` left out. @returns a new object (the span's own is left as it is).
 */
export function redactAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || DROPPED.test(key)) continue;
    out[key] = URL_KEYS.has(key) ? withoutQuery(value) : value;
  }
  return out;
}

/**
 * A span exporter that hands `inner` each span with `redactAttributes` applied to its attributes and its
 * events' (exception events keep `exception.type` only) and its status without a message. The spans are
 * views over the SDK's own (the prototype chain), so nothing else is copied.
 */
export class RedactingExporter implements SpanExporter {
  private readonly inner: SpanExporter;
  constructor(inner: SpanExporter) {
    this.inner = inner;
  }
  export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]): void {
    this.inner.export(spans.map(redactSpan), done);
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function redactSpan(span: ReadableSpan): ReadableSpan {
  return Object.create(span, {
    attributes: { value: redactAttributes(span.attributes) },
    status: { value: { code: span.status.code } },
    events: {
      value: span.events.map((e) => ({
        ...e,
        attributes:
          e.name === "exception"
            ? { "exception.type": e.attributes?.["exception.type"] ?? "Error" }
            : redactAttributes(e.attributes ?? {}),
      })),
    },
  }) as ReadableSpan;
}
