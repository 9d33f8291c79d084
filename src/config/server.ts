/**
 * Settings of the process and its URLs: environment, listen address, the public base URL, browser origins,
 * local data, logs, trusted proxies, and the health and metrics listeners (docs/operations.md "Health,
 * metrics and traces"). Tracing reads the standard `OTEL_*` variables itself (src/observability/tracing.ts).
 */
import Type from "typebox";
import ipaddr from "ipaddr.js";
import { type ConfigArea, ConfigError, type EnvReader, Int, OneOf, Str, stripSlash } from "./env.ts";

const PORT_PATTERN = "^[0-9]{1,5}$";

export const ServerEnv = Type.Object({
  NODE_ENV: Str(
    {},
    {
      description:
        "`production` makes keys and AI providers required and lets no stand-in run by accident (below)",
      defaultText: "unset",
    },
  ),
  PORT: Int(3000, 0, 65535, { description: "listen port (0: any free port)" }),
  HOST: Str({ minLength: 1 }, { description: "listen address", defaultText: "all interfaces" }),
  PUBLIC_BASE_URL: Str(
    { pattern: "^https?://[^/?#]+/?$" },
    { description: "external base URL (pages, approval links)", defaultText: "`http://localhost:$PORT`" },
  ),
  CORS_ALLOWED_ORIGINS: Str(
    {},
    { description: "comma-separated browser origins allowed on `/mcp` (no wildcards)", defaultText: "empty" },
  ),
  DATA_DIR: Str(
    { minLength: 1 },
    { description: "local data: embedded Postgres, dev keys, media", defaultText: "`./.data`" },
  ),
  LOG_LEVEL: OneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
    description: "pino level",
    defaultText: "`info`",
  }),
  TRUST_PROXY: Str(
    { minLength: 1 },
    {
      description:
        "proxies in front of the service, with Express `trust proxy` semantics: a hop count (`1` = one reverse proxy), or a comma-separated list of proxy addresses/CIDRs (`10.0.0.0/8,fd00::/8`, also `loopback`, `linklocal`, `uniquelocal`). Decides the client IP the per-IP limits count and whether `X-Forwarded-Proto/Host` are read. `true` is refused: it would let any client pick its address",
      defaultText: "off",
    },
  ),
  HEALTH_PORT: Str(
    { pattern: PORT_PATTERN },
    {
      description:
        'a listener of its own for `GET /healthz` (200 while the process runs) and `GET /readyz` (200 when PostgreSQL answers, the migrations are applied, pg-boss is started and media storage is writable; else 503 naming the failed checks; 503 from SIGTERM on), in every command: the only HTTP port of a `worker`; `serve` and `all` also answer both on `PORT` (docs/operations.md "Health and readiness")',
      defaultText: "unset (8081 in `deploy/Dockerfile` and `deploy/compose.yaml`)",
    },
  ),
  METRICS_PORT: Str(
    { pattern: PORT_PATTERN },
    {
      description:
        '`GET /metrics` in the Prometheus text format on a listener of its own; unset, no metric is kept (docs/operations.md "Metrics")',
      defaultText: "unset (off)",
    },
  ),
  METRICS_HOST: Str(
    { minLength: 1 },
    {
      description:
        "the address of the metrics listener; `0.0.0.0` only where the port is not reachable from outside (the compose network)",
      defaultText: "127.0.0.1",
    },
  ),
});

/** The process and its URLs. URLs have no trailing slash. */
export interface ServerConfig {
  production: boolean;
  port: number;
  host: string | undefined;
  publicBaseUrl: string;
  corsAllowedOrigins: string[];
  dataDir: string;
  logLevel: string;
  /**
   * Express `trust proxy` setting: `false` (default, `X-Forwarded-*` ignored), a hop count (the client is
   * the address that many hops before the socket peer), or proxy addresses / CIDRs / the names `loopback`,
   * `linklocal`, `uniquelocal` (the client is the first address, from the right, that is not a trusted proxy).
   */
  trustProxy: false | number | string[];
  /**
   * Health, metrics and traces (docs/operations.md "Health, metrics and traces"). `healthPort`
   * (HEALTH_PORT): a listener of its own for `/healthz` and `/readyz` in every command (`worker` has no
   * other; `serve` and `all` also answer on PORT); undefined = off. `metricsPort` (METRICS_PORT): the
   * listener of `GET /metrics` (Prometheus text format) on `metricsHost` (METRICS_HOST, default
   * 127.0.0.1); undefined = off, and no metric is kept. 0 = any free port (tests).
   */
  observability: { healthPort: number | undefined; metricsPort: number | undefined; metricsHost: string };
}

export const serverArea: ConfigArea = {
  title: "Server and URLs",
  schema: ServerEnv,
  external: [
    {
      names: ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_*"],
      defaultText: "unset (off)",
      description:
        'OpenTelemetry traces with the official Node SDK: on when an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER` (`otlp`, `console`) is set and not `OTEL_SDK_DISABLED=true`; OTLP/HTTP with `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` (default) or `http/json`; `OTEL_SERVICE_NAME` (default `social-mcp`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*` as the SDK reads them (docs/operations.md "Traces")',
    },
  ],
};

/**
 * The process and URL settings.
 * @throws ConfigError naming PORT, CORS_ALLOWED_ORIGINS, TRUST_PROXY, HEALTH_PORT or METRICS_PORT.
 */
export function serverConfig(r: EnvReader): ServerConfig {
  const { picked, production } = r;
  const port = r.num("PORT", 3000);
  const origins = (picked.CORS_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const o of origins) {
    if (o === "*" || !/^https?:\/\/[^/]+$/.test(o))
      throw new ConfigError(
        "CORS_ALLOWED_ORIGINS",
        `"${o}" is not an origin (scheme://host[:port]); no wildcards`,
      );
  }
  return {
    production,
    port,
    host: picked.HOST,
    publicBaseUrl: stripSlash(picked.PUBLIC_BASE_URL ?? `http://localhost:${port}`),
    corsAllowedOrigins: origins,
    dataDir: picked.DATA_DIR ?? "./.data",
    logLevel: picked.LOG_LEVEL ?? "info",
    trustProxy: parseTrustProxy(picked.TRUST_PROXY),
    observability: {
      healthPort: portOf(picked, "HEALTH_PORT"),
      metricsPort: portOf(picked, "METRICS_PORT"),
      metricsHost: picked.METRICS_HOST ?? "127.0.0.1",
    },
  };
}

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * Parses TRUST_PROXY (Express "trust proxy" semantics, https://expressjs.com/en/guide/behind-proxies.html):
 * unset, `false` or `0` -> off; a positive integer -> that many proxy hops; otherwise a comma-separated list
 * of IP addresses, CIDR ranges and the names loopback, linklocal, uniquelocal. `true` (trust every hop) is
 * refused: it lets any client choose its own address through `X-Forwarded-For` and so escape per-IP limits.
 * @throws ConfigError naming TRUST_PROXY and the rejected entry.
 */
export function parseTrustProxy(value: string | undefined): false | number | string[] {
  const v = value?.trim();
  if (v === undefined || v === "" || v === "false" || v === "0") return false;
  if (v === "true")
    throw new ConfigError(
      "TRUST_PROXY",
      "true would trust every X-Forwarded-For hop (any client could pick its address); give the number of proxies in front of the service (e.g. 1) or their addresses/CIDRs",
    );
  if (/^[0-9]+$/.test(v)) {
    const hops = Number(v);
    if (hops > 32) throw new ConfigError("TRUST_PROXY", "a hop count must be between 0 and 32");
    return hops;
  }
  const entries = v.split(",").map((s) => s.trim());
  for (const entry of entries) {
    const ok =
      PROXY_NAMES.has(entry) || (entry.includes("/") ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry));
    if (!ok)
      throw new ConfigError(
        "TRUST_PROXY",
        `"${entry}" is not a hop count, an IP address, a CIDR range or one of loopback, linklocal, uniquelocal`,
      );
  }
  return entries;
}

/** An optional TCP port setting (0 to 65535) or undefined. @throws ConfigError above 65535. */
function portOf(
  picked: Readonly<Record<string, string>>,
  name: "HEALTH_PORT" | "METRICS_PORT",
): number | undefined {
  const v = picked[name];
  if (v === undefined) return undefined;
  if (Number(v) > 65535) throw new ConfigError(name, "must be a port from 0 to 65535");
  return Number(v);
}
