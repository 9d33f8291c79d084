/**
 * The observability settings (src/config/server.ts `observability`, src/observability/tracing-sdk.ts): HEALTH_PORT and
 * METRICS_PORT are off unless set, METRICS_HOST defaults to loopback, bad ports are refused by name; tracing is
 * asked for by the standard OTEL_* variables only, an unsupported exporter or protocol is a configuration
 * error naming its variable (before any instrumentation is enabled); the startup banner says what runs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startupBanner } from "../../src/cli/banner.ts";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import type { AppContext } from "../../src/context.ts";
import { startTracing, TracingConfigError, tracingRequested } from "../../src/observability/tracing-sdk.ts";
import { tracer } from "../../src/observability/tracing.ts";
import { buildProviders } from "../../src/providers/providers.ts";

test("HEALTH_PORT and METRICS_PORT are off unless set; METRICS_HOST is loopback by default; bad ports are refused", () => {
  assert.deepEqual(loadConfig({}).observability, {
    healthPort: undefined,
    metricsPort: undefined,
    metricsHost: "127.0.0.1",
  });
  assert.deepEqual(
    loadConfig({ HEALTH_PORT: "8081", METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" }).observability,
    { healthPort: 8081, metricsPort: 9464, metricsHost: "0.0.0.0" },
  );
  assert.equal(loadConfig({ METRICS_PORT: "0" }).observability.metricsPort, 0);
  assert.throws(
    () => loadConfig({ HEALTH_PORT: "70000" }),
    (e: ConfigError) => e.variable === "HEALTH_PORT",
  );
  assert.throws(
    () => loadConfig({ METRICS_PORT: "metrics" }),
    (e: ConfigError) => e.variable === "METRICS_PORT",
  );
});

test("tracing is asked for only by the standard OTEL_* variables", () => {
  assert.equal(tracingRequested({}), false);
  assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }), true);
  assert.equal(
    tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }),
    true,
  );
  assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: "console" }), true);
  assert.equal(
    tracingRequested({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }),
    false,
  );
  assert.equal(
    tracingRequested({ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }),
    false,
  );
});

test("an unsupported exporter or protocol is a configuration error naming its variable, and nothing starts", () => {
  const refused = (env: Record<string, string>, variable: string) =>
    assert.throws(
      () => startTracing(env),
      (e: Error) =>
        e instanceof TracingConfigError && e instanceof ConfigError && e.message.startsWith(`${variable}: `),
    );
  refused({ OTEL_TRACES_EXPORTER: "zipkin" }, "OTEL_TRACES_EXPORTER");
  refused(
    { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
    "OTEL_EXPORTER_OTLP_PROTOCOL",
  );
  assert.equal(tracer, undefined, "the service's spans stay off");
});

test("the banner says where /healthz, /readyz and /metrics answer and whether traces are exported", () => {
  const ctxWith = (env: Record<string, string>) => {
    const config = loadConfig(env);
    return { config, providers: buildProviders(config) } as unknown as AppContext;
  };
  const worker = startupBanner(ctxWith({}), { command: "worker", embeddedDb: false }).join("\n");
  assert.match(
    worker,
    /observability: no health listener \(HEALTH_PORT unset\); metrics off \(METRICS_PORT unset\); tracing off/,
  );
  const serve = startupBanner(ctxWith({}), {
    command: "serve",
    port: 3000,
    embeddedDb: false,
    healthPort: 8081,
    metrics: { host: "127.0.0.1", port: 9464 },
    tracing: true,
  }).join("\n");
  assert.match(
    serve,
    /observability: \/healthz and \/readyz on port 3000 and HEALTH_PORT 8081; \/metrics on 127\.0\.0\.1:9464; traces exported \(OTEL_\*\)/,
  );
});
