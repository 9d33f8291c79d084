/**
 * The service's own spans on the OpenTelemetry API (https://opentelemetry.io/docs/languages/js/): the
 * `tools/call` span and its pipeline stages, the approval, the worker's execution of a job and the delivery
 * steps (docs/operations.md "Traces"). The SDK, its exporter and the http, undici, pg and express
 * instrumentations are started by ./tracing-sdk.ts only when the standard OTEL_* variables ask for traces;
 * until then `tracer` is undefined and every caller skips its tracing code behind one test of it, so that
 * tracing costs nothing when it is off (no span object, no closure, no context switch).
 *
 * Attributes hold bounded, non-secret values only (service spec 7 rule 7): tool and stage names, states,
 * networks, error codes and classes, ids of our own records; never a token, a prompt, a caption, a URL
 * query or a body. ./tracing-sdk.ts also scrubs what the instrumentations record before export.
 *
 * The trace context crosses process boundaries as a W3C `traceparent`
 * (https://www.w3.org/TR/trace-context/#traceparent-header): stored on the operation row when a
 * `tools/call` creates it and in the pg-boss job data when work is queued, so that the approval, the
 * worker's execution and the delivery steps continue the trace of the call that started them.
 */
import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

export type { Span };
export { SpanKind, SpanStatusCode };

/** The instrumentation scope of the service's own spans. */
export const TRACER_NAME = "social-mcp";

/** The service's tracer while tracing is on; undefined otherwise (test it before any tracing work). */
export let tracer: Tracer | undefined;

/** Turns the service's own spans on (./tracing-sdk.ts, once the SDK is registered) or off (`undefined`). */
export function setTracer(next: Tracer | undefined): void {
  tracer = next;
}

/**
 * Runs `fn` inside a new span `name`, active for everything `fn` awaits (SQL, outbound calls and child
 * spans attach to it), and ends it when `fn` settles: a rejection sets the span's status to ERROR with the
 * error's class as `error.type` (never its message, which can carry user data). `parent` replaces the active
 * context as the parent (a stored `traceparent`, see `contextOf`). Call it only while `tracer` is set.
 * @returns what `fn` returns; rethrows what it throws.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes | undefined,
  fn: (span: Span) => Promise<T>,
  parent?: Context | undefined,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  const t = tracer ?? trace.getTracer(TRACER_NAME);
  const span = t.startSpan(name, { attributes, kind }, parent ?? context.active());
  return context.with(trace.setSpan(parent ?? context.active(), span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Starts a span `name` under the active span without making it active: for a stage whose own calls need no
 * parent of their own (`span.end()` when it is over). Call it only while `tracer` is set.
 */
export function startSpan(name: string, attributes?: Attributes): Span {
  return (tracer ?? trace.getTracer(TRACER_NAME)).startSpan(name, { attributes });
}

/** Marks `span` failed with the error's class (`error.type`), never its message. */
export function failSpan(span: Span, err: unknown): void {
  const type = (err as { name?: unknown })?.name;
  span.setAttribute(
    "error.type",
    typeof type === "string" && /^[A-Za-z0-9_.-]{1,40}$/.test(type) ? type : "Error",
  );
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * The W3C `traceparent` of the active span (`00-{trace id}-{span id}-{flags}`), or undefined when no span is
 * active or tracing is off: what a record or a job carries so that later work continues the trace.
 */
export function activeTraceparent(): string | undefined {
  if (!tracer || !trace.getSpan(context.active())) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The context whose parent is the span a stored `traceparent` names, or undefined when there is none (or it
 * is malformed, or tracing is off): work resumed from a record or a job continues that trace.
 */
export function contextOf(traceparent: unknown): Context | undefined {
  if (!tracer || typeof traceparent !== "string" || !TRACEPARENT.test(traceparent)) return undefined;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/**
 * `trace_id` and `span_id` of the active span for a log line (pino `mixin`, src/log.ts); an empty object
 * when no span is active.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = tracer ? trace.getSpan(context.active()) : undefined;
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * `data` with the active span's `traceparent` added while tracing is on (job data of pg-boss, so that the
 * worker's execution continues the trace), `data` itself otherwise.
 */
export function withTraceparent<T extends object>(data: T): T & { traceparent?: string } {
  const traceparent = activeTraceparent();
  return traceparent ? { ...data, traceparent } : data;
}

/**
 * Names the active span (the http instrumentation's server span of a request Express does not route, such as
 * the MCP endpoint's fast lane) `{method} {route}` with its `http.route`. Call it only while `tracer` is set.
 */
export function routeActiveSpan(method: string, route: string): void {
  const span = trace.getSpan(context.active());
  span?.updateName(`${method} ${route}`);
  span?.setAttribute("http.route", route);
}

/** True when a span is active (tracing on and inside a span). */
export function hasActiveSpan(): boolean {
  return tracer !== undefined && trace.getSpan(context.active()) !== undefined;
}
