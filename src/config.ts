/**
 * Service configuration: every setting of DESIGN.md section 5, read from the environment once at start
 * and validated with TypeBox. A bad value fails start-up with one line naming the variable.
 *
 * Units: all durations are seconds unless the name says otherwise; sizes are bytes.
 */
import Type, { type Static } from "typebox";
import { Value } from "typebox/value";
import ipaddr from "ipaddr.js";
import { keyHashId } from "./crypto/seal.ts";

const Bool = Type.Union([Type.Literal("true"), Type.Literal("false"), Type.Literal("1"), Type.Literal("0")]);
const Int = (def: number, min = 0, max = 1_000_000_000) =>
  Type.Optional(Type.String({ pattern: "^[0-9]+$", default: String(def), minimum: min, maximum: max }));

const GIB = 1024 ** 3;

/** Raw environment schema: names are the env variable names. Every value is a string or absent. */
/**
 * Limits the service spec fixes (section 8): not configurable, enforced where named and published in the
 * catalog and the guide (codegen/limits.ts). The configurable limits are the defaults of EnvSchema below.
 */
export const SPEC_LIMITS = {
  /** Largest MCP request body (src/mcp/routes.ts), bytes. */
  protocolBodyBytes: 256 * 1024,
  /** Redirect URIs a registered client may have (src/oauth/register.ts). */
  redirectUrisPerClient: { min: 1, max: 10 },
  /** Access token lifetime (src/oauth/tokens.ts), seconds. */
  accessTokenLifetimeSeconds: 3600,
  /** Refresh token lifetime (src/oauth/tokens.ts), seconds. */
  refreshTokenLifetimeSeconds: 30 * 24 * 3600,
  /** Interval of the maintenance pass (src/operations/boss.ts MAINTENANCE_CRON), seconds. */
  maintenanceIntervalSeconds: 300,
  /** QUEUE_RETRY_AFTER_SECONDS must exceed this (a queued job outlives an approval's expiry), seconds. */
  queueRetryAfterMinSeconds: 1800,
  /** Page size of list tools (src/domain/cursor.ts pageSize). */
  listPageSize: { default: 20, max: 50 },
  /** Items get_best_performing_content returns at most (src/domain/analytics/analytics.ts). */
  topContentItems: 5,
  /** Length of the CTA video of an AI UGC automation (src/domain/automations/config.ts), seconds. */
  ugcCtaVideoSeconds: { min: 3, max: 15 },
} as const;

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
  APP_ENCRYPTION_KEYS: Type.Optional(
    Type.String({
      pattern: "^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/_-]{43}=?( *, *[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/_-]{43}=?)*$",
    }),
  ),
  SIGNING_KEYS: Type.Optional(Type.String({ minLength: 2 })),
  SIGNING_KEYS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Type.Optional(
    Type.Union(["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((l) => Type.Literal(l))),
  ),
  TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  AI_TEXT_PROVIDER: Type.Optional(Type.Union([Type.Literal("local"), Type.Literal("openai-compatible")])),
  AI_TEXT_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://" })),
  AI_TEXT_API_KEY: Type.Optional(Type.String()),
  AI_TEXT_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  AI_TEXT_TIMEOUT_SECONDS: Int(30, 1, 600),
  AI_TEXT_TEMPERATURE: Type.Optional(Type.String({ pattern: "^(0|[01]\\.[0-9]{1,3}|2|2\\.0{1,3}|1)$" })),
  AI_IMAGE_PROVIDER: Type.Optional(Type.Union([Type.Literal("local"), Type.Literal("openai-compatible")])),
  AI_IMAGE_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://" })),
  AI_IMAGE_API_KEY: Type.Optional(Type.String()),
  AI_IMAGE_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  AI_IMAGE_TIMEOUT_SECONDS: Int(120, 1, 600),
  AI_IMAGE_SIZE: Type.Optional(Type.String({ pattern: "^(auto|[1-9][0-9]{1,4}x[1-9][0-9]{1,4})$" })),
  AI_IMAGE_CONCURRENCY: Int(4, 1, 16),
  MEDIA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  MEDIA_MAX_IMAGE_BYTES: Int(20 * 1024 * 1024, 1),
  MEDIA_MAX_VIDEO_BYTES: Int(200 * 1024 * 1024, 1),
  MEDIA_STORAGE: Type.Optional(Type.Union([Type.Literal("local"), Type.Literal("s3")])),
  S3_BUCKET: Type.Optional(Type.String({ pattern: "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$" })),
  S3_ENDPOINT: Type.Optional(Type.String({ pattern: "^https?://" })),
  S3_FORCE_PATH_STYLE: Type.Optional(Bool),
  AWS_REGION: Type.Optional(Type.String({ minLength: 1 })),
  FFMPEG_PATH: Type.Optional(Type.String({ minLength: 1 })),
  FFPROBE_PATH: Type.Optional(Type.String({ minLength: 1 })),
  FFMPEG_MAX_MEMORY_BYTES: Int(2 * GIB, 256 * 1024 * 1024, Number.MAX_SAFE_INTEGER),
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
  RATE_LIMIT_REGISTER_HOUR: Int(500, 1),
  RATE_LIMIT_REGISTER_IP_HOUR: Int(20, 1),
  LOGIN_EMAIL_FAILURES: Int(5, 1, 1000),
  LOGIN_BACKOFF_SECONDS: Int(60, 1, 86_400),
  LOGIN_BACKOFF_MAX_SECONDS: Int(3600, 1, 86_400),
  PASSWORD_HASH_MEMORY_KIB: Int(65_536, 19_456, 4_194_304),
  PASSWORD_HASH_TIME_COST: Int(3, 2, 20),
  PASSWORD_HASH_PARALLELISM: Int(4, 1, 16),
  RATE_LIMIT_BROWSER: Int(30, 1),
  RATE_LIMIT_DOWNLOAD: Int(5, 1),
  RATE_LIMIT_UPLOADS: Int(10, 1),
  RATE_LIMIT_MEDIA_PUBLIC: Int(600, 1),
  RATE_LIMIT_WINDOW_SECONDS: Int(60, 1, 3600),
  STORAGE_QUOTA_CREATOR_BYTES: Int(GIB, 0, Number.MAX_SAFE_INTEGER),
  STORAGE_QUOTA_GROWTH_BYTES: Int(10 * GIB, 0, Number.MAX_SAFE_INTEGER),
  STORAGE_QUOTA_PRO_BYTES: Int(100 * GIB, 0, Number.MAX_SAFE_INTEGER),
  TOOLS_PAGE_SIZE: Int(50, 1, 1000),
  LONG_POLL_MAX_PER_USER: Int(4, 0, 100),
  LONG_POLL_MAX_PER_PROCESS: Int(2000, 0, 100_000),
  WORKER_CONCURRENCY: Int(4, 1, 256),
  OPERATION_DEADLINE_SECONDS: Int(900, 1),
  WORKER_LEASE_SECONDS: Int(30, 3, 600),
  APPROVAL_TTL_SECONDS: Int(1800, 1),
  STRANDED_AFTER_SECONDS: Int(600, 1),
  QUEUE_RETRY_AFTER_SECONDS: Int(3600, SPEC_LIMITS.queueRetryAfterMinSeconds + 1),
  OAUTH_UNUSED_CLIENT_TTL_SECONDS: Int(7 * 24 * 3600, 3600),
  ANALYTICS_SYNC_PAUSE_MS: Int(200, 0, 60_000),
  ANALYTICS_SYNC_CONCURRENCY: Int(8, 1, 64),
  ANALYTICS_SYNC_MAX_WAIT_SECONDS: Int(120, 0, 3600),
  ANALYTICS_YOUTUBE_DAILY_QUOTA: Int(10_000, 1, 100_000_000),
  SOCIAL_HTTP_OVERRIDE: Type.Optional(Type.String({ pattern: "^https?://[^/?#]+/?$" })),
  DELIVERY_LEASE_SECONDS: Int(300, 10, 3600),
  DELIVERY_POLL_SECONDS: Int(5, 1, 60),
  DELIVERY_NETWORK_CONCURRENCY: Int(8, 1, 64),
  LINKEDIN_VERSION: Type.Optional(Type.String({ pattern: "^20[0-9]{2}(0[1-9]|1[0-2])$" })),
  LINKEDIN_ORGANIZATIONS: Type.Optional(Bool),
  SOCIAL_SANDBOX_NETWORKS: Type.Optional(Type.String({ maxLength: 200 })),
  AI_FALLBACK: Type.Optional(Type.Union([Type.Literal("none"), Type.Literal("local")])),
  // Observability (docs/operations.md "Health, metrics and traces"); tracing reads the standard OTEL_*
  // variables itself (src/observability/tracing.ts).
  HEALTH_PORT: Type.Optional(Type.String({ pattern: "^[0-9]{1,5}$" })),
  METRICS_PORT: Type.Optional(Type.String({ pattern: "^[0-9]{1,5}$" })),
  METRICS_HOST: Type.Optional(Type.String({ minLength: 1 })),
  ...socialCredentialSchema(),
});

/** The `LinkedIn-Version` (YYYYMM) used when `LINKEDIN_VERSION` is not set. */
export const DEFAULT_LINKEDIN_VERSION = "202610";

/** The networks with `{NETWORK}_CLIENT_ID` / `{NETWORK}_CLIENT_SECRET` settings (same list as providers/social/types.ts). */
export const SOCIAL_CREDENTIAL_NETWORKS = [
  "instagram",
  "tiktok",
  "facebook",
  "youtube",
  "linkedin",
  "pinterest",
  "x",
] as const;

function socialCredentialSchema() {
  const out: Record<string, ReturnType<typeof Type.Optional<ReturnType<typeof Type.String>>>> = {};
  for (const n of ["INSTAGRAM", "TIKTOK", "FACEBOOK", "YOUTUBE", "LINKEDIN", "PINTEREST", "X"]) {
    out[`${n}_CLIENT_ID`] = Type.Optional(Type.String({ minLength: 1, maxLength: 512 }));
    out[`${n}_CLIENT_SECRET`] = Type.Optional(Type.String({ minLength: 1, maxLength: 1024 }));
  }
  return out;
}

export type Env = Static<typeof EnvSchema>;

/** Thrown for a bad setting; `variable` names the env variable. */
export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
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

/** argon2id parameters of new password hashes (see `Config.passwordHash`). */
export interface PasswordHashing {
  /** KiB of memory per hash. */
  memoryCost: number;
  /** Passes over the memory. */
  timeCost: number;
  /** Lanes (threads) per hash. */
  parallelism: number;
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
  /**
   * The application keys, newest first (APP_ENCRYPTION_KEYS `id:base64,...`, or APP_ENCRYPTION_KEY as one key
   * with its hash id): the newest seals, all open (src/crypto/seal.ts); undefined outside production when
   * neither is set (src/keys.ts then keeps a development key).
   */
  appEncryptionKeys: Array<{ id: string; key: string }> | undefined;
  /** JSON JWK set text (private keys) or undefined. */
  signingKeys: string | undefined;
  signingKeysFile: string | undefined;
  dataDir: string;
  logLevel: string;
  /**
   * Express `trust proxy` setting: `false` (default, `X-Forwarded-*` ignored), a hop count (the client is
   * the address that many hops before the socket peer), or proxy addresses / CIDRs / the names `loopback`,
   * `linklocal`, `uniquelocal` (the client is the first address, from the right, that is not a trusted proxy).
   */
  trustProxy: false | number | string[];
  /**
   * The AI text provider (src/providers/ai-text/). `model` is set whenever `provider` is
   * `openai-compatible` (no default). `temperature` (AI_TEXT_TEMPERATURE, 0 to 2) is sent only when set:
   * reasoning models refuse any other than their default.
   */
  ai: {
    provider: "local" | "openai-compatible";
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    timeoutSeconds: number;
    temperature: number | undefined;
  };
  /**
   * The AI image provider (src/providers/ai-image/): same shape as `ai`; timeout per image, seconds. `size`
   * (AI_IMAGE_SIZE, "auto" or "WxH") replaces the model family's size (src/providers/ai-image/sizes.ts).
   */
  image: {
    provider: "local" | "openai-compatible";
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    timeoutSeconds: number;
    size: string | undefined;
    /**
     * Images of one carousel run or video automation run generated at once (AI_IMAGE_CONCURRENCY, 1..16,
     * default 4; src/domain/concurrency.ts). Each finished image is checkpointed as it finishes.
     */
    concurrency: number;
  };
  media: {
    dir: string;
    maxImageBytes: number;
    maxVideoBytes: number;
    /** ffmpeg and ffprobe to use instead of those on PATH (FFMPEG_PATH, FFPROBE_PATH; docs/ffmpeg.md). */
    ffmpegPath: string | undefined;
    ffprobePath: string | undefined;
    /** Address space of one ffmpeg or ffprobe run (FFMPEG_MAX_MEMORY_BYTES, RLIMIT_AS), bytes. */
    ffmpegMaxMemoryBytes: number;
    /** Stored media bytes allowed per workspace, by the owner's plan (uploads beyond it are refused). */
    storageQuotaBytes: { creator: number; growth: number; pro: number };
    /** `local` (files under `dir`, the default) or `s3` (any S3-compatible object store). */
    storage: "local" | "s3";
    /** Set when `storage` is `s3`; credentials come from the standard AWS variables and files. */
    s3: { bucket: string; endpoint: string | undefined; region: string; forcePathStyle: boolean } | undefined;
  };
  /**
   * The video provider (README "Media stack"): `local` composes every template with ffmpeg;
   * `openai-compatible` generates the AI UGC hook clip through `POST {baseUrl}/videos` (a gateway that still
   * speaks the Videos API shape; `model` has no default). Timeout in seconds covers one whole generation
   * (create, polling and download).
   */
  video: {
    provider: "local" | "openai-compatible";
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    timeoutSeconds: number;
  };
  /**
   * `AI_FALLBACK`: what a generation does when the configured AI text or image provider fails. `none`
   * (default): the run fails with the provider's error (refunded by the usual rules). `local`: the offline
   * local provider writes or draws that part instead, and every output says so (`provider: "local"` on the
   * slide, caption or video). Never a silent stand-in (src/domain/ai-fallback.ts).
   */
  aiFallback: "none" | "local";
  /** Test-only: a loopback port the guarded fetch may reach (accepted only with a loopback PUBLIC_BASE_URL). */
  fetchAllowLoopbackPort: number | undefined;
  /**
   * argon2id cost of new password hashes (RFC 9106): `memoryCost` KiB (PASSWORD_HASH_MEMORY_KIB, default
   * 65,536 = 64 MiB, at least 19,456 = 19 MiB), `timeCost` passes (PASSWORD_HASH_TIME_COST, default 3, at
   * least 2) and `parallelism` lanes (PASSWORD_HASH_PARALLELISM, default 4). The floor is OWASP's Password
   * Storage Cheat Sheet minimum (m=19 MiB, t=2, p=1). A stored hash carries its own parameters, so a change
   * applies to new passwords and never locks anyone out.
   */
  passwordHash: PasswordHashing;
  budgets: Budgets;
  /**
   * Long polls (`wait_seconds`, src/domain/long-poll.ts): concurrent waits per user and per process; a call
   * beyond either answers at once.
   */
  longPoll: { maxPerUser: number; maxPerProcess: number };
  limits: {
    mcpPerIp: number;
    oauth: number;
    register: number;
    /** Client registrations per hour from all addresses together (RATE_LIMIT_REGISTER_HOUR). */
    registerPerHour: number;
    /**
     * Client registrations per hour from one address (an IPv6 /64), RATE_LIMIT_REGISTER_IP_HOUR (default
     * 20): below `registerPerHour`, so that one address cannot use up the hourly cap of everyone.
     */
    registerPerIpHour: number;
    /** The per-email sign-in throttle (src/domain/account/login-throttle.ts). */
    login: { freeFailures: number; backoffSeconds: number; backoffMaxSeconds: number };
    browser: number;
    download: number;
    /** Media uploads per user per window. */
    uploads: number;
    /** Requests to signed public media URLs (/media/public) per IP per window. */
    mediaPublic: number;
    /** The window of every rate limit and budget, seconds (service spec 8: one minute). */
    windowSeconds: number;
    toolsPageSize: number;
  };
  worker: {
    concurrency: number;
    operationDeadlineSeconds: number;
    /** How long a claimed operation stays leased without a heartbeat (seconds); a third of it is the beat. */
    leaseSeconds: number;
    approvalTtlSeconds: number;
    strandedAfterSeconds: number;
    queueRetryAfterSeconds: number;
    /** Age after which a registered OAuth client that never obtained a token is deleted (maintenance). */
    unusedClientTtlSeconds: number;
  };
  /** The daily metrics sync (src/domain/analytics/sync.ts). */
  analytics: {
    /** `ANALYTICS_SYNC_PAUSE_MS`: pause between two calls to the same network, milliseconds (default 200). */
    syncPauseMs: number;
    /**
     * `ANALYTICS_SYNC_CONCURRENCY`: account jobs of a sync run each worker reads at a time (default 8, 1 to
     * 64). Apart from WORKER_CONCURRENCY because these jobs wait on the networks (paced calls), not on the CPU:
     * 10,000 accounts over the seven networks take 16 minutes with 2 workers at 8, 32 at 4 (bench/README.md).
     */
    syncConcurrency: number;
    /**
     * `ANALYTICS_SYNC_MAX_WAIT_SECONDS`: the longest Retry-After a sync waits out (default 120); a network that
     * asks for longer is left for the next sync (its remaining accounts and posts are marked partial).
     */
    syncMaxWaitSeconds: number;
    /**
     * `ANALYTICS_YOUTUBE_DAILY_QUOTA`: the YouTube Data API units per quota day (midnight Pacific) the sync may
     * spend for the app, counted across workers (`videos.list` / `channels.list`: 1 unit each; default 10,000,
     * Google's default project quota). Beyond it, the app's YouTube accounts wait for the next sync.
     */
    youtubeDailyQuotaUnits: number;
  };
  social: {
    /**
     * Test-only `SOCIAL_HTTP_OVERRIDE` (http://host:port): network adapters send `https://{host}{path}` to
     * `{override}/{host}{path}` (src/providers/social/http.ts). Accepted only with a loopback target while
     * PUBLIC_BASE_URL is loopback, never in production.
     */
    httpOverride: string | undefined;
    /**
     * `{NETWORK}_CLIENT_ID` / `_SECRET` per network: a network with them is live; one without them uses the
     * sandbox connector when `sandboxNetworks` names it, else it is unavailable.
     */
    credentials: Partial<
      Record<(typeof SOCIAL_CREDENTIAL_NETWORKS)[number], { clientId: string; clientSecret: string }>
    >;
    /**
     * `SOCIAL_SANDBOX_NETWORKS` (comma-separated network names): the networks whose offline sandbox
     * connector may run (for networks without credentials, and for accounts connected in sandbox mode).
     * Unset: every network outside production, none in production (DESIGN.md section 5: no stand-in runs
     * there unless named), so a production network without credentials is unavailable, not a sandbox.
     */
    sandboxNetworks: Array<(typeof SOCIAL_CREDENTIAL_NETWORKS)[number]>;
    /**
     * `LINKEDIN_VERSION`: the `LinkedIn-Version` header (YYYYMM) of every LinkedIn REST call (versioned
     * APIs; a version is supported for at least one year). Default `DEFAULT_LINKEDIN_VERSION`.
     */
    linkedinVersion: string;
    /**
     * `LINKEDIN_ORGANIZATIONS`: also ask for the organization page scopes (`w_organization_social`,
     * `r_organization_social`, `rw_organization_admin`) at consent, to post as the pages the member
     * administers. Only for a LinkedIn app granted the Community Management API product: LinkedIn refuses
     * the whole consent (`unauthorized_scope_error`) when a requested scope is not granted to the app.
     * Default false (`openid profile w_member_social`: the member only).
     */
    linkedinOrganizations: boolean;
    /**
     * `DELIVERY_LEASE_SECONDS`: how long one delivery step may run before another worker may take the
     * delivery over (a worker that died mid-step is detected after this). Longer than the longest step
     * (an upload step stops after 120 s).
     */
    deliveryLeaseSeconds: number;
    /**
     * `DELIVERY_POLL_SECONDS`: how long each worker's delivery loop (src/operations/deliveries.ts) waits
     * before its next pass when the last one was not full (default 5 s); a full pass is followed at once.
     */
    deliveryPollSeconds: number;
    /**
     * `DELIVERY_NETWORK_CONCURRENCY`: delivery steps each worker runs at once on one network (default 8,
     * 1 to 64), each on a different account (src/operations/delivery-lanes.ts).
     */
    deliveryNetworkConcurrency: number;
  };
  /**
   * Health, metrics and traces (docs/operations.md "Health, metrics and traces"). `healthPort`
   * (HEALTH_PORT): a listener of its own for `/healthz` and `/readyz` in every command (`worker` has no
   * other; `serve` and `all` also answer on PORT); undefined = off. `metricsPort` (METRICS_PORT): the
   * listener of `GET /metrics` (Prometheus text format) on `metricsHost` (METRICS_HOST, default
   * 127.0.0.1); undefined = off, and no metric is kept. 0 = any free port (tests).
   */
  observability: { healthPort: number | undefined; metricsPort: number | undefined; metricsHost: string };
}

const stripSlash = (u: string) => u.replace(/\/+$/, "");
const bool = (v: string | undefined, def: boolean) => (v === undefined ? def : v === "true" || v === "1");

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

/**
 * The application keys of APP_ENCRYPTION_KEYS (`id:base64` entries, newest first) or APP_ENCRYPTION_KEY.
 * @throws ConfigError when both are set, an id repeats or a key is not 32 bytes.
 */
function appKeys(picked: Record<string, string>): Array<{ id: string; key: string }> | undefined {
  const list = picked.APP_ENCRYPTION_KEYS;
  const single = picked.APP_ENCRYPTION_KEY;
  if (list && single)
    throw new ConfigError(
      "APP_ENCRYPTION_KEYS",
      "set either APP_ENCRYPTION_KEYS or APP_ENCRYPTION_KEY, not both",
    );
  const keys = list
    ? list.split(",").map((entry) => {
        const [id, key] = entry.trim().split(":") as [string, string];
        return { id, key };
      })
    : single
      ? [{ id: keyHashId(single), key: single }]
      : undefined;
  const seen = new Set<string>();
  for (const k of keys ?? []) {
    const variable = list ? "APP_ENCRYPTION_KEYS" : "APP_ENCRYPTION_KEY";
    if (Buffer.from(k.key, "base64").length !== 32)
      throw new ConfigError(variable, `the key ${list ? `with id ${k.id} ` : ""}is not 32 bytes of base64`);
    if (seen.has(k.id)) throw new ConfigError(variable, `the key id ${k.id} is listed twice`);
    seen.add(k.id);
  }
  return keys;
}

/** True when `host` (a URL's hostname, IPv6 in brackets or not) is `localhost` or a loopback address. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  return ipaddr.isValid(h) && ipaddr.process(h).range() === "loopback";
}

/**
 * The test hooks SOCIAL_HTTP_OVERRIDE and FETCH_ALLOW_LOOPBACK_PORT (issue 23 point 6) redirect outbound
 * traffic, so they are accepted only in a local test set-up: never in production, only while
 * PUBLIC_BASE_URL is a loopback address (a service reachable from elsewhere never has them), and the
 * override only with a loopback target. Start-up logs a warning for each (src/bootstrap.ts).
 * @throws ConfigError naming the hook and the rule it breaks.
 */
function checkTestHooks(picked: Record<string, string>, production: boolean, publicBaseUrl: string): void {
  const publicHost = new URL(publicBaseUrl).hostname;
  for (const name of ["SOCIAL_HTTP_OVERRIDE", "FETCH_ALLOW_LOOPBACK_PORT"] as const) {
    const value = picked[name];
    if (!value) continue;
    if (production) throw new ConfigError(name, "is a test-only setting and is refused in production");
    if (!isLoopbackHost(publicHost))
      throw new ConfigError(
        name,
        `is a test-only setting, accepted only while PUBLIC_BASE_URL is a loopback address (it is ${publicBaseUrl})`,
      );
    if (name === "SOCIAL_HTTP_OVERRIDE" && !isLoopbackHost(new URL(value).hostname))
      throw new ConfigError(
        name,
        `must point at a loopback address (127.0.0.1, [::1] or localhost), not ${new URL(value).hostname}`,
      );
  }
}

/**
 * In production (NODE_ENV=production) no stand-in runs by accident (DESIGN.md section 5): the AI text and
 * image providers must be chosen explicitly (`local` stays allowed when set).
 * @throws ConfigError naming AI_TEXT_PROVIDER or AI_IMAGE_PROVIDER.
 */
function checkProductionProviders(picked: Record<string, string>): void {
  for (const kind of ["TEXT", "IMAGE"] as const) {
    const variable = `AI_${kind}_PROVIDER`;
    if (!picked[variable])
      throw new ConfigError(
        variable,
        "must be set in production (NODE_ENV=production): openai-compatible, or local for the offline stand-in; no AI provider is chosen by default there",
      );
  }
}

/**
 * SOCIAL_SANDBOX_NETWORKS: the named networks (see `Config.social.sandboxNetworks`), or the default.
 * @throws ConfigError naming SOCIAL_SANDBOX_NETWORKS and an entry that is not a network.
 */
function sandboxNetworks(
  value: string | undefined,
  production: boolean,
): Config["social"]["sandboxNetworks"] {
  if (value === undefined) return production ? [] : [...SOCIAL_CREDENTIAL_NETWORKS];
  const names = value
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  for (const n of names)
    if (!(SOCIAL_CREDENTIAL_NETWORKS as readonly string[]).includes(n))
      throw new ConfigError(
        "SOCIAL_SANDBOX_NETWORKS",
        `"${n}" is not a network (one of ${SOCIAL_CREDENTIAL_NETWORKS.join(", ")})`,
      );
  return SOCIAL_CREDENTIAL_NETWORKS.filter((n) => names.includes(n));
}

/**
 * RATE_LIMIT_REGISTER_IP_HOUR checked against RATE_LIMIT_REGISTER_HOUR: one address (an IPv6 /64) may not
 * register as many clients in an hour as every address together, or it alone could use up the hourly cap.
 * @throws ConfigError naming RATE_LIMIT_REGISTER_IP_HOUR.
 */
function registerPerIpHour(perIp: number, all: number): number {
  if (perIp >= all)
    throw new ConfigError(
      "RATE_LIMIT_REGISTER_IP_HOUR",
      `must be below RATE_LIMIT_REGISTER_HOUR (${all}), so that one address cannot use up the hourly cap of every address`,
    );
  return perIp;
}

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
  // An openai-compatible provider needs its base URL and its model: no built-in model default, because
  // providers retire models (README "AI providers"); bootstrap checks the model against GET {base}/models.
  for (const kind of ["TEXT", "IMAGE", "VIDEO"] as const) {
    if (picked[`AI_${kind}_PROVIDER`] !== "openai-compatible") continue;
    for (const part of ["BASE_URL", "MODEL"] as const)
      if (!picked[`AI_${kind}_${part}`])
        throw new ConfigError(`AI_${kind}_${part}`, `required when AI_${kind}_PROVIDER=openai-compatible`);
  }
  const provider = (picked.AI_TEXT_PROVIDER ?? "local") as Config["ai"]["provider"];
  const imageProvider = (picked.AI_IMAGE_PROVIDER ?? "local") as Config["image"]["provider"];
  const videoProvider = (picked.AI_VIDEO_PROVIDER ?? "local") as Config["video"]["provider"];
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
  checkTestHooks(picked, production, publicBaseUrl);
  if (production) checkProductionProviders(picked);
  const credentials: Config["social"]["credentials"] = {};
  for (const n of SOCIAL_CREDENTIAL_NETWORKS) {
    const id = picked[`${n.toUpperCase()}_CLIENT_ID`];
    const secret = picked[`${n.toUpperCase()}_CLIENT_SECRET`];
    if ((id === undefined) !== (secret === undefined))
      throw new ConfigError(
        `${n.toUpperCase()}_CLIENT_${id === undefined ? "ID" : "SECRET"}`,
        `must be set together with ${n.toUpperCase()}_CLIENT_${id === undefined ? "SECRET" : "ID"}`,
      );
    if (id !== undefined && secret !== undefined) credentials[n] = { clientId: id, clientSecret: secret };
  }
  const dataDir = picked.DATA_DIR ?? "./.data";
  const mediaStorage = (picked.MEDIA_STORAGE ?? "local") as Config["media"]["storage"];
  if (mediaStorage === "s3" && !picked.S3_BUCKET)
    throw new ConfigError("S3_BUCKET", "required when MEDIA_STORAGE=s3");
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
    appEncryptionKeys: appKeys(picked),
    signingKeys: picked.SIGNING_KEYS,
    signingKeysFile: picked.SIGNING_KEYS_FILE,
    dataDir,
    logLevel: picked.LOG_LEVEL ?? (production ? "info" : "info"),
    trustProxy: parseTrustProxy(picked.TRUST_PROXY),
    ai: {
      provider,
      baseUrl: picked.AI_TEXT_BASE_URL,
      apiKey: picked.AI_TEXT_API_KEY,
      model: picked.AI_TEXT_MODEL,
      timeoutSeconds: num("AI_TEXT_TIMEOUT_SECONDS", 30),
      temperature: picked.AI_TEXT_TEMPERATURE === undefined ? undefined : Number(picked.AI_TEXT_TEMPERATURE),
    },
    image: {
      provider: imageProvider,
      baseUrl: picked.AI_IMAGE_BASE_URL,
      apiKey: picked.AI_IMAGE_API_KEY,
      model: picked.AI_IMAGE_MODEL,
      timeoutSeconds: num("AI_IMAGE_TIMEOUT_SECONDS", 120),
      size: picked.AI_IMAGE_SIZE,
      concurrency: num("AI_IMAGE_CONCURRENCY", 4),
    },
    media: {
      dir: picked.MEDIA_DIR ?? `${dataDir}/media`,
      maxImageBytes: num("MEDIA_MAX_IMAGE_BYTES", 20 * 1024 * 1024),
      maxVideoBytes: num("MEDIA_MAX_VIDEO_BYTES", 200 * 1024 * 1024),
      storageQuotaBytes: {
        creator: num("STORAGE_QUOTA_CREATOR_BYTES", GIB),
        growth: num("STORAGE_QUOTA_GROWTH_BYTES", 10 * GIB),
        pro: num("STORAGE_QUOTA_PRO_BYTES", 100 * GIB),
      },
      storage: mediaStorage,
      s3:
        mediaStorage === "s3"
          ? {
              bucket: picked.S3_BUCKET as string,
              endpoint: picked.S3_ENDPOINT,
              region: picked.AWS_REGION ?? "us-east-1",
              forcePathStyle: bool(picked.S3_FORCE_PATH_STYLE, Boolean(picked.S3_ENDPOINT)),
            }
          : undefined,
      ffmpegPath: picked.FFMPEG_PATH,
      ffprobePath: picked.FFPROBE_PATH,
      ffmpegMaxMemoryBytes: num("FFMPEG_MAX_MEMORY_BYTES", 2 * GIB),
    },
    video: {
      provider: videoProvider,
      baseUrl: picked.AI_VIDEO_BASE_URL ? stripSlash(picked.AI_VIDEO_BASE_URL) : undefined,
      apiKey: picked.AI_VIDEO_API_KEY,
      model: picked.AI_VIDEO_MODEL,
      timeoutSeconds: num("AI_VIDEO_TIMEOUT_SECONDS", 600),
    },
    aiFallback: picked.AI_FALLBACK === "local" ? "local" : "none",
    fetchAllowLoopbackPort: picked.FETCH_ALLOW_LOOPBACK_PORT
      ? Number(picked.FETCH_ALLOW_LOOPBACK_PORT)
      : undefined,
    passwordHash: {
      memoryCost: num("PASSWORD_HASH_MEMORY_KIB", 65_536),
      timeCost: num("PASSWORD_HASH_TIME_COST", 3),
      parallelism: num("PASSWORD_HASH_PARALLELISM", 4),
    },
    longPoll: {
      maxPerUser: num("LONG_POLL_MAX_PER_USER", 4),
      maxPerProcess: num("LONG_POLL_MAX_PER_PROCESS", 2000),
    },
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
      registerPerHour: num("RATE_LIMIT_REGISTER_HOUR", 500),
      registerPerIpHour: registerPerIpHour(
        num("RATE_LIMIT_REGISTER_IP_HOUR", 20),
        num("RATE_LIMIT_REGISTER_HOUR", 500),
      ),
      login: {
        freeFailures: num("LOGIN_EMAIL_FAILURES", 5),
        backoffSeconds: num("LOGIN_BACKOFF_SECONDS", 60),
        backoffMaxSeconds: num("LOGIN_BACKOFF_MAX_SECONDS", 3600),
      },
      browser: num("RATE_LIMIT_BROWSER", 30),
      download: num("RATE_LIMIT_DOWNLOAD", 5),
      uploads: num("RATE_LIMIT_UPLOADS", 10),
      mediaPublic: num("RATE_LIMIT_MEDIA_PUBLIC", 600),
      windowSeconds: num("RATE_LIMIT_WINDOW_SECONDS", 60),
      toolsPageSize: num("TOOLS_PAGE_SIZE", 50),
    },
    worker: {
      concurrency: num("WORKER_CONCURRENCY", 4),
      operationDeadlineSeconds: num("OPERATION_DEADLINE_SECONDS", 900),
      leaseSeconds: num("WORKER_LEASE_SECONDS", 30),
      approvalTtlSeconds: num("APPROVAL_TTL_SECONDS", 1800),
      strandedAfterSeconds: num("STRANDED_AFTER_SECONDS", 600),
      queueRetryAfterSeconds: num("QUEUE_RETRY_AFTER_SECONDS", 3600),
      unusedClientTtlSeconds: num("OAUTH_UNUSED_CLIENT_TTL_SECONDS", 7 * 24 * 3600),
    },
    analytics: {
      syncPauseMs: num("ANALYTICS_SYNC_PAUSE_MS", 200),
      syncConcurrency: num("ANALYTICS_SYNC_CONCURRENCY", 8),
      syncMaxWaitSeconds: num("ANALYTICS_SYNC_MAX_WAIT_SECONDS", 120),
      youtubeDailyQuotaUnits: num("ANALYTICS_YOUTUBE_DAILY_QUOTA", 10_000),
    },
    social: {
      httpOverride: picked.SOCIAL_HTTP_OVERRIDE ? stripSlash(picked.SOCIAL_HTTP_OVERRIDE) : undefined,
      credentials,
      sandboxNetworks: sandboxNetworks(picked.SOCIAL_SANDBOX_NETWORKS, production),
      linkedinVersion: picked.LINKEDIN_VERSION ?? DEFAULT_LINKEDIN_VERSION,
      linkedinOrganizations: bool(picked.LINKEDIN_ORGANIZATIONS, false),
      deliveryLeaseSeconds: num("DELIVERY_LEASE_SECONDS", 300),
      deliveryPollSeconds: num("DELIVERY_POLL_SECONDS", 5),
      deliveryNetworkConcurrency: num("DELIVERY_NETWORK_CONCURRENCY", 8),
    },
    observability: {
      healthPort: portOf(picked, "HEALTH_PORT"),
      metricsPort: portOf(picked, "METRICS_PORT"),
      metricsHost: picked.METRICS_HOST ?? "127.0.0.1",
    },
  };
}

/** An optional TCP port setting (0 to 65535) or undefined. @throws ConfigError above 65535. */
function portOf(picked: Record<string, string>, name: "HEALTH_PORT" | "METRICS_PORT"): number | undefined {
  const v = picked[name];
  if (v === undefined) return undefined;
  if (Number(v) > 65535) throw new ConfigError(name, "must be a port from 0 to 65535");
  return Number(v);
}
