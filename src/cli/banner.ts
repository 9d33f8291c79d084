/**
 * The startup banner of `social-mcp all|serve|worker` (printed by src/main.ts): what this process runs,
 * the plans new users get, the URLs a person needs (MCP endpoint, reference, settings, media, sign-in), and
 * which providers are live and which are local/sandbox stand-ins, read from `ctx.providers` and the config,
 * the ffmpeg/ffprobe versions in use (or what is missing), and, when TikTok is live, the public media URL
 * prefix to verify with TikTok.
 */
import type { AppContext } from "../context.ts";
import { PLAN_QUOTAS, PLANS } from "../domain/account/plans.ts";
import { publicMediaPrefix } from "../domain/media/public-url.ts";
import {
  type BinaryReport,
  describeMediaBinaries,
  memoryBoundAvailable,
} from "../providers/media-binaries.ts";
import { networkMode } from "../providers/providers.ts";
import { NETWORKS } from "../providers/social/types.ts";

export interface BannerInput {
  command: "all" | "serve" | "worker";
  /** The bound HTTP port, when this process serves HTTP. */
  port?: number | undefined;
  /** True when the database is the embedded PostgreSQL under DATA_DIR. */
  embeddedDb: boolean;
  /** What `inspectMediaBinaries` found (src/providers/media-binaries.ts); the line is left out without it. */
  media?: { ffmpeg: BinaryReport; ffprobe: BinaryReport } | undefined;
  /** The bound HEALTH_PORT, when the health listener runs. */
  healthPort?: number | undefined;
  /** Where `GET /metrics` answers, when the metrics listener runs. */
  metrics?: { host: string; port: number | undefined } | undefined;
  /** True when OpenTelemetry tracing is on (src/observability/tracing-sdk.ts). */
  tracing?: boolean | undefined;
}

const RUNS: Record<BannerInput["command"], string> = {
  all: "HTTP server + queue worker + maintenance (every 5 min) + scheduler (every minute)",
  serve: "HTTP server only (start `social-mcp worker` for queued work, approvals and schedules)",
  worker: "queue worker + maintenance (every 5 min) + scheduler (every minute); no HTTP",
};

/** "local" adapters are offline stand-ins that do real work locally; anything else talks to the network. */
function kind(name: string | undefined): string {
  if (!name || name === "local") return "local (offline stand-in)";
  if (name === "sandbox" || name.includes("sandbox")) return `${name} (sandbox)`;
  return `${name} (live)`;
}

/** The banner lines (no trailing newline). Never includes a secret: hosts only, no keys or credentials. */
export function startupBanner(ctx: AppContext, input: BannerInput): string[] {
  const { config, providers } = ctx;
  const base = config.publicBaseUrl;
  const plans = PLANS.map((p) => {
    const q = PLAN_QUOTAS[p];
    const ws = q.ownedWorkspaces ?? "unlimited";
    const au = q.automations ?? "unlimited";
    return `${p} (${ws} workspaces, ${au} automations, ${q.startingCredits} credits)`;
  }).join("; ");
  const text =
    providers.text.name === "openai-compatible" && config.ai.baseUrl
      ? `${kind(providers.text.name)}, model ${config.ai.model} at ${new URL(config.ai.baseUrl).host}`
      : kind(providers.text.name);
  const lines = [
    input.port !== undefined ? `Social MCP listening on port ${input.port}` : "Social MCP worker started",
    `  runs:          ${RUNS[input.command]}`,
    `  plans:         new users start on creator; ${plans}`,
  ];
  if (input.command !== "worker") {
    lines.push(
      `  MCP endpoint:  ${config.resourceUrl}${config.mcpEnabled ? "" : " (disabled: MCP_ENABLED=false)"}`,
      `  reference:     ${base}/developers/mcp`,
      `  settings:      ${base}/settings/integrations/mcp`,
      `  media upload:  ${base}/media`,
      `  sign in:       ${base}/login`,
    );
  }
  lines.push(
    "  providers:",
    `    AI text:     ${text}`,
    `    AI image:    ${kind(providers.image.name)}`,
    `    video:       ${kind(providers.video.name)}`,
    `    social:      ${socialLine(config)}`,
    ...(tiktokLive(config)
      ? [
          `    TikTok:      verify the URL prefix ${publicMediaPrefix(base)} for the TikTok app (photo posts are pulled from it; else url_ownership_unverified)`,
        ]
      : []),
    `    storage:     ${
      config.media.storage === "s3" && config.media.s3
        ? `S3 bucket ${config.media.s3.bucket}${config.media.s3.endpoint ? ` at ${new URL(config.media.s3.endpoint).host}` : ""}`
        : `local disk ${config.media.dir}`
    }`,
    ...(input.media
      ? [`    ffmpeg:      ${ffmpegLine(input.media, config.media.ffmpegMaxMemoryBytes)}`]
      : []),
    `    database:    ${input.embeddedDb ? `embedded PostgreSQL under ${config.dataDir}/postgres` : "external PostgreSQL (DATABASE_URL)"}`,
    `  observability: ${observabilityLine(input)}`,
    "  create a user: npm run cli -- admin user create --email you@example.com --password 'a long password' --workspace 'My workspace'",
  );
  return lines;
}

/** Health and metrics listeners and tracing, as this process runs them (docs/operations.md). */
function observabilityLine(input: BannerInput): string {
  return [
    input.command === "worker" && input.healthPort === undefined
      ? "no health listener (HEALTH_PORT unset)"
      : `/healthz and /readyz on ${[input.port !== undefined ? `port ${input.port}` : "", input.healthPort !== undefined ? `HEALTH_PORT ${input.healthPort}` : ""].filter(Boolean).join(" and ")}`,
    input.metrics
      ? `/metrics on ${input.metrics.host}:${input.metrics.port}`
      : "metrics off (METRICS_PORT unset)",
    input.tracing ? "traces exported (OTEL_*)" : "tracing off",
  ].join("; ");
}

/** The networks that publish for real: credentials configured and a live adapter. */
function liveNetworks(config: AppContext["config"]) {
  return NETWORKS.filter((n) => networkMode(config, n) === "live");
}

/** TikTok is live: its photo posts are pulled from the public media URLs, whose prefix must be verified. */
function tiktokLive(config: AppContext["config"]): boolean {
  return liveNetworks(config).includes("tiktok");
}

/** The ffmpeg line: versions and paths (or what is missing), and the bounds of each run. */
function ffmpegLine(media: NonNullable<BannerInput["media"]>, maxMemoryBytes: number): string {
  const line = describeMediaBinaries(media);
  if (!media.ffmpeg.version) return line;
  return memoryBoundAvailable()
    ? `${line}; each run bounded to ${Math.round((maxMemoryBytes / 1024 ** 3) * 10) / 10} GiB of memory`
    : `${line}; no memory bound (util-linux prlimit not found)`;
}

/**
 * Which networks publish for real (credentials and a live adapter), which use the sandbox connector, and
 * which are unavailable (no credentials, and SOCIAL_SANDBOX_NETWORKS does not name them).
 */
function socialLine(config: AppContext["config"]): string {
  const of = (mode: string) => NETWORKS.filter((n) => networkMode(config, n) === mode);
  const parts = [];
  if (of("live").length > 0) parts.push(`live: ${of("live").join(", ")}`);
  if (of("sandbox").length > 0) parts.push(`sandbox (labelled, offline): ${of("sandbox").join(", ")}`);
  if (of("unavailable").length > 0)
    parts.push(
      `unavailable (no credentials; SOCIAL_SANDBOX_NETWORKS does not name them): ${of("unavailable").join(", ")}`,
    );
  return parts.join("; ");
}
