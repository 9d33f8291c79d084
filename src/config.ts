/**
 * Service configuration: every setting of DESIGN.md section 5, read from the environment once at start
 * and validated with TypeBox. A bad value fails start-up with one line naming the variable.
 *
 * Units: all durations are seconds unless the name says otherwise; sizes are bytes.
 */
import Type, { type Static } from "typebox";
import { Value } from "typebox/value";

const Bool = Type.Union([Type.Literal("true"), Type.Literal("false"), Type.Literal("1"), Type.Literal("0")]);
const Int = (def: number, min = 0, max = 1_000_000_000) =>
  Type.Optional(Type.String({ pattern: "^[0-9]+$", default: String(def), minimum: min, maximum: max }));

/** Raw environment schema: names are the env variable names. Every value is a string or absent. */
export const EnvSchema = Type.Object({
  NODE_ENV: Type.Optional(Type.String()),
  DATABASE_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://" })),
  PORT: Int(3000, 0, 65535),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://[^/?#]+/?$" })),
  MCP_RESOURCE_URL: Type.Optional(Type.String({ pattern: "^https?://[^?#]+$" })),
  OAUTH_ISSUER_URL: Type.Optional(Type.String({ pattern: "^https?://[^?#]+$" })),
  MCP_ENABLED: Type.Optional(Bool),
  CORS_ALLOWED_ORIGINS: Type.Optional(Type.String()),
  APP_ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9+/_-]{43}=?$" })),
  SIGNING_KEYS: Type.Optional(Type.String({ minLength: 2 })),
  SIGNING_KEYS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Type.Optional(
    Type.Union(["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((l) => Type.Literal(l))),
  ),
  TRUST_PROXY: Type.Optional(Bool),
  AI_TEXT_PROVIDER: Type.Optional(Type.Union([Type.Literal("local"), Type.Literal("openai-compatible")])),
  AI_TEXT_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://" })),
  AI_TEXT_API_KEY: Type.Optional(Type.String()),
  AI_TEXT_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  AI_TEXT_TIMEOUT_SECONDS: Int(30, 1, 600),
  MEDIA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  MEDIA_MAX_IMAGE_BYTES: Int(20 * 1024 * 1024, 1),
  MEDIA_MAX_VIDEO_BYTES: Int(200 * 1024 * 1024, 1),
  FFMPEG_PATH: Type.Optional(Type.String({ minLength: 1 })),
  FFPROBE_PATH: Type.Optional(Type.String({ minLength: 1 })),
  AI_VIDEO_PROVIDER: Type.Optional(Type.Union([Type.Literal("local"), Type.Literal("openai-compatible")])),
  AI_VIDEO_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://" })),
  AI_VIDEO_API_KEY: Type.Optional(Type.String()),
  AI_VIDEO_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  AI_VIDEO_TIMEOUT_SECONDS: Int(600, 1, 3600),
  FETCH_ALLOW_LOOPBACK_PORT: Type.Optional(Type.String({ pattern: "^[0-9]{1,5}$" })),
  RATE_LIMIT_READS: Int(120, 1),
  RATE_LIMIT_WRITES: Int(30, 1),
  RATE_LIMIT_AI: Int(5, 1),
  RATE_LIMIT_APPROVAL: Int(5, 1),
  RATE_LIMIT_DELETE: Int(3, 1),
  RATE_LIMIT_MCP_IP: Int(240, 1),
  RATE_LIMIT_OAUTH: Int(60, 1),
  RATE_LIMIT_REGISTER: Int(10, 1),
  RATE_LIMIT_BROWSER: Int(30, 1),
  RATE_LIMIT_DOWNLOAD: Int(5, 1),
  TOOLS_PAGE_SIZE: Int(50, 1, 1000),
  WORKER_CONCURRENCY: Int(4, 1, 256),
  OPERATION_DEADLINE_SECONDS: Int(900, 1),
  APPROVAL_TTL_SECONDS: Int(1800, 1),
  STRANDED_AFTER_SECONDS: Int(600, 1),
  QUEUE_RETRY_AFTER_SECONDS: Int(3600, 1801),
});

export type Env = Static<typeof EnvSchema>;

/** Thrown for a bad setting; `variable` names the env variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}

/** Per-user-per-minute budgets of service spec 8, keyed by the catalog's `budget` names. */
export interface Budgets {
  read: number;
  write: number;
  ai: number;
  approval: number;
  delete: number;
}

/** The resolved configuration. URLs have no trailing slash. */
export interface Config {
  production: boolean;
  databaseUrl: string | undefined;
  port: number;
  host: string | undefined;
  publicBaseUrl: string;
  /** The exact MCP endpoint URL (RFC 8707 resource indicator). */
  resourceUrl: string;
  issuerUrl: string;
  mcpEnabled: boolean;
  corsAllowedOrigins: string[];
  /** base64 32-byte AES-256-GCM key; undefined until keys are resolved (src/keys.ts). */
  appEncryptionKey: string | undefined;
  /** JSON JWK set text (private keys) or undefined. */
  signingKeys: string | undefined;
  signingKeysFile: string | undefined;
  dataDir: string;
  logLevel: string;
  trustProxy: boolean;
  ai: {
    provider: "local" | "openai-compatible";
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string;
    timeoutSeconds: number;
  };
  /**
   * Media files. `ffmpegPath`/`ffprobePath` override the binaries bundled by @ffmpeg-installer/ffmpeg and
   * @ffprobe-installer/ffprobe (env FFMPEG_PATH, FFPROBE_PATH); undefined means the bundled ones.
   */
  media: {
    dir: string;
    maxImageBytes: number;
    maxVideoBytes: number;
    ffmpegPath: string | undefined;
    ffprobePath: string | undefined;
  };
  /**
   * The video provider (README "Media stack"): `local` composes every template with ffmpeg;
   * `openai-compatible` generates the AI UGC hook clip through `POST {baseUrl}/videos`. Timeout in seconds
   * covers one whole generation (create, polling and download).
   */
  video: {
    provider: "local" | "openai-compatible";
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string;
    timeoutSeconds: number;
  };
  /** Test-only: a loopback port the guarded fetch may reach. Never set in production. */
  fetchAllowLoopbackPort: number | undefined;
  budgets: Budgets;
  limits: {
    mcpPerIp: number;
    oauth: number;
    register: number;
    browser: number;
    download: number;
    toolsPageSize: number;
  };
  worker: {
    concurrency: number;
    operationDeadlineSeconds: number;
    approvalTtlSeconds: number;
    strandedAfterSeconds: number;
    queueRetryAfterSeconds: number;
  };
}

const stripSlash = (u: string) => u.replace(/\/+$/, "");
const bool = (v: string | undefined, def: boolean) => (v === undefined ? def : v === "true" || v === "1");

/**
 * Reads and validates the configuration.
 * @param env the environment (defaults to process.env); unknown variables are ignored.
 * @throws ConfigError naming the first bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const v = env[key];
    if (v !== undefined && v !== "") picked[key] = v;
  }
  for (const error of Value.Errors(EnvSchema, picked)) {
    const variable = error.instancePath.replace(/^\//, "") || "environment";
    throw new ConfigError(variable, `invalid value (${error.message})`);
  }
  const num = (key: keyof Env, def: number): number => {
    const v = picked[key];
    if (v === undefined) return def;
    const n = Number(v);
    const schema = (EnvSchema.properties as Record<string, { minimum?: number; maximum?: number }>)[key];
    if (!Number.isSafeInteger(n)) throw new ConfigError(key, "must be an integer");
    if (schema?.minimum !== undefined && n < schema.minimum)
      throw new ConfigError(key, `must be >= ${schema.minimum}`);
    if (schema?.maximum !== undefined && n > schema.maximum)
      throw new ConfigError(key, `must be <= ${schema.maximum}`);
    return n;
  };
  const production = picked.NODE_ENV === "production";
  const port = num("PORT", 3000);
  const publicBaseUrl = stripSlash(picked.PUBLIC_BASE_URL ?? `http://localhost:${port}`);
  const resourceUrl = stripSlash(picked.MCP_RESOURCE_URL ?? `${publicBaseUrl}/mcp`);
  const issuerUrl = stripSlash(picked.OAUTH_ISSUER_URL ?? publicBaseUrl);
  const provider = (picked.AI_TEXT_PROVIDER ?? "local") as Config["ai"]["provider"];
  if (provider === "openai-compatible" && !picked.AI_TEXT_BASE_URL)
    throw new ConfigError("AI_TEXT_BASE_URL", "required when AI_TEXT_PROVIDER=openai-compatible");
  const videoProvider = (picked.AI_VIDEO_PROVIDER ?? "local") as Config["video"]["provider"];
  if (videoProvider === "openai-compatible" && !picked.AI_VIDEO_BASE_URL)
    throw new ConfigError("AI_VIDEO_BASE_URL", "required when AI_VIDEO_PROVIDER=openai-compatible");
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
  if (production && picked.FETCH_ALLOW_LOOPBACK_PORT)
    throw new ConfigError("FETCH_ALLOW_LOOPBACK_PORT", "is a test-only setting and is refused in production");
  const dataDir = picked.DATA_DIR ?? "./.data";
  return {
    production,
    databaseUrl: picked.DATABASE_URL,
    port,
    host: picked.HOST,
    publicBaseUrl,
    resourceUrl,
    issuerUrl,
    mcpEnabled: bool(picked.MCP_ENABLED, true),
    corsAllowedOrigins: origins,
    appEncryptionKey: picked.APP_ENCRYPTION_KEY,
    signingKeys: picked.SIGNING_KEYS,
    signingKeysFile: picked.SIGNING_KEYS_FILE,
    dataDir,
    logLevel: picked.LOG_LEVEL ?? (production ? "info" : "info"),
    trustProxy: bool(picked.TRUST_PROXY, false),
    ai: {
      provider,
      baseUrl: picked.AI_TEXT_BASE_URL,
      apiKey: picked.AI_TEXT_API_KEY,
      model: picked.AI_TEXT_MODEL ?? "gpt-4o-mini",
      timeoutSeconds: num("AI_TEXT_TIMEOUT_SECONDS", 30),
    },
    media: {
      dir: picked.MEDIA_DIR ?? `${dataDir}/media`,
      maxImageBytes: num("MEDIA_MAX_IMAGE_BYTES", 20 * 1024 * 1024),
      maxVideoBytes: num("MEDIA_MAX_VIDEO_BYTES", 200 * 1024 * 1024),
      ffmpegPath: picked.FFMPEG_PATH,
      ffprobePath: picked.FFPROBE_PATH,
    },
    video: {
      provider: videoProvider,
      baseUrl: picked.AI_VIDEO_BASE_URL ? stripSlash(picked.AI_VIDEO_BASE_URL) : undefined,
      apiKey: picked.AI_VIDEO_API_KEY,
      model: picked.AI_VIDEO_MODEL ?? "sora-2",
      timeoutSeconds: num("AI_VIDEO_TIMEOUT_SECONDS", 600),
    },
    fetchAllowLoopbackPort: picked.FETCH_ALLOW_LOOPBACK_PORT
      ? Number(picked.FETCH_ALLOW_LOOPBACK_PORT)
      : undefined,
    budgets: {
      read: num("RATE_LIMIT_READS", 120),
      write: num("RATE_LIMIT_WRITES", 30),
      ai: num("RATE_LIMIT_AI", 5),
      approval: num("RATE_LIMIT_APPROVAL", 5),
      delete: num("RATE_LIMIT_DELETE", 3),
    },
    limits: {
      mcpPerIp: num("RATE_LIMIT_MCP_IP", 240),
      oauth: num("RATE_LIMIT_OAUTH", 60),
      register: num("RATE_LIMIT_REGISTER", 10),
      browser: num("RATE_LIMIT_BROWSER", 30),
      download: num("RATE_LIMIT_DOWNLOAD", 5),
      toolsPageSize: num("TOOLS_PAGE_SIZE", 50),
    },
    worker: {
      concurrency: num("WORKER_CONCURRENCY", 4),
      operationDeadlineSeconds: num("OPERATION_DEADLINE_SECONDS", 900),
      approvalTtlSeconds: num("APPROVAL_TTL_SECONDS", 1800),
      strandedAfterSeconds: num("STRANDED_AFTER_SECONDS", 600),
      queueRetryAfterSeconds: num("QUEUE_RETRY_AFTER_SECONDS", 3600),
    },
  };
}
