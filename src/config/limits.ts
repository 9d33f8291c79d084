/**
 * Limits: the fixed values of service spec 8 (`SPEC_LIMITS`), and the configurable ones: per-user budgets,
 * per-IP and per-route rate limits, client registrations, the sign-in throttle, the tools/list page.
 */
import Type from "typebox";
import { type ConfigArea, ConfigError, type EnvReader, Int } from "./env.ts";

/**
 * Limits the service spec fixes (section 8): not configurable, enforced where named and published in the
 * catalog and the guide (codegen/limits.ts). The configurable limits are the defaults of `LimitsEnv`.
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

const MAX = 1_000_000_000;
const perUser = (what: string) => `per-user budget per window: ${what}`;
const perIp = (what: string) =>
  `${what} per IP per window; an IPv6 client is counted by its /64 (one subscriber's usual prefix), an IPv4 one by its address`;

export const LimitsEnv = Type.Object({
  RATE_LIMIT_READS: Int(120, 1, MAX, { description: perUser("reads") }),
  RATE_LIMIT_WRITES: Int(30, 1, MAX, { description: perUser("normal writes") }),
  RATE_LIMIT_AI: Int(5, 1, MAX, { description: perUser("AI and credit-generation actions") }),
  RATE_LIMIT_APPROVAL: Int(5, 1, MAX, { description: perUser("publishing and approval-gated actions") }),
  RATE_LIMIT_DELETE: Int(3, 1, MAX, { description: perUser("deletions") }),
  RATE_LIMIT_MCP_IP: Int(240, 1, MAX, { description: perIp("MCP endpoint requests") }),
  RATE_LIMIT_OAUTH: Int(60, 1, MAX, { description: perIp("OAuth route requests") }),
  RATE_LIMIT_REGISTER: Int(10, 1, MAX, { description: perIp("client registrations") }),
  RATE_LIMIT_REGISTER_HOUR: Int(500, 1, MAX, {
    description:
      "client registrations per hour from all addresses together (429 beyond it); only valid registrations count against it",
  }),
  RATE_LIMIT_REGISTER_IP_HOUR: Int(20, 1, MAX, {
    description:
      "client registrations per hour from one address (an IPv6 /64); must be below `RATE_LIMIT_REGISTER_HOUR`, so one address cannot use up everyone's hourly cap",
  }),
  LOGIN_EMAIL_FAILURES: Int(5, 1, 1000, {
    description:
      "sign-in throttle per email and client address (an IPv6 /64): attempts without a wait; a successful sign-in or a day without attempts clears it. Failures from other addresses never slow the owner's own",
  }),
  LOGIN_BACKOFF_SECONDS: Int(60, 1, 86_400, {
    description:
      "sign-in throttle: after the free attempts each attempt waits this long after the previous one, doubling with each failure (429 naming the wait)",
  }),
  LOGIN_BACKOFF_MAX_SECONDS: Int(3600, 1, 86_400, { description: "sign-in throttle: the longest wait" }),
  RATE_LIMIT_BROWSER: Int(30, 1, MAX, { description: perIp("browser consent and settings requests") }),
  RATE_LIMIT_DOWNLOAD: Int(5, 1, MAX, { description: perIp("reference bundle downloads") }),
  RATE_LIMIT_UPLOADS: Int(10, 1, MAX, {
    description: "media uploads per user per window (`POST /media`); more answer 429 with `Retry-After`",
  }),
  RATE_LIMIT_MEDIA_PUBLIC: Int(600, 1, MAX, {
    description:
      "requests to signed public media URLs (`/media/public/...`, pulled by networks) per IP per window",
  }),
  RATE_LIMIT_WINDOW_SECONDS: Int(60, 1, 3600, {
    description: "the window of every limit and budget above (the spec's minute; tests use a short one)",
  }),
  TOOLS_PAGE_SIZE: Int(50, 1, 1000, { description: "`tools/list` page size" }),
});

/** Per-user-per-minute budgets of service spec 8, keyed by the catalog's `budget` names. */
export interface Budgets {
  read: number;
  write: number;
  ai: number;
  approval: number;
  delete: number;
}

export interface LimitsConfig {
  budgets: Budgets;
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
}

export const limitsArea: ConfigArea = { title: "Limits", schema: LimitsEnv };

/**
 * The budgets and rate limits.
 * @throws ConfigError naming a variable out of its bounds, or RATE_LIMIT_REGISTER_IP_HOUR when it is not
 * below RATE_LIMIT_REGISTER_HOUR.
 */
export function limitsConfig(r: EnvReader): LimitsConfig {
  return {
    budgets: {
      read: r.num("RATE_LIMIT_READS", 120),
      write: r.num("RATE_LIMIT_WRITES", 30),
      ai: r.num("RATE_LIMIT_AI", 5),
      approval: r.num("RATE_LIMIT_APPROVAL", 5),
      delete: r.num("RATE_LIMIT_DELETE", 3),
    },
    limits: {
      mcpPerIp: r.num("RATE_LIMIT_MCP_IP", 240),
      oauth: r.num("RATE_LIMIT_OAUTH", 60),
      register: r.num("RATE_LIMIT_REGISTER", 10),
      registerPerHour: r.num("RATE_LIMIT_REGISTER_HOUR", 500),
      registerPerIpHour: registerPerIpHour(
        r.num("RATE_LIMIT_REGISTER_IP_HOUR", 20),
        r.num("RATE_LIMIT_REGISTER_HOUR", 500),
      ),
      login: {
        freeFailures: r.num("LOGIN_EMAIL_FAILURES", 5),
        backoffSeconds: r.num("LOGIN_BACKOFF_SECONDS", 60),
        backoffMaxSeconds: r.num("LOGIN_BACKOFF_MAX_SECONDS", 3600),
      },
      browser: r.num("RATE_LIMIT_BROWSER", 30),
      download: r.num("RATE_LIMIT_DOWNLOAD", 5),
      uploads: r.num("RATE_LIMIT_UPLOADS", 10),
      mediaPublic: r.num("RATE_LIMIT_MEDIA_PUBLIC", 600),
      windowSeconds: r.num("RATE_LIMIT_WINDOW_SECONDS", 60),
      toolsPageSize: r.num("TOOLS_PAGE_SIZE", 50),
    },
  };
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
