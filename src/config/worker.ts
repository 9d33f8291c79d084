/**
 * The worker and the metrics sync: jobs at a time, deadlines and leases of operations and renders
 * (docs/operations.md "Leases", "Carousel render jobs"), the operation lifecycle's timers (service spec 8),
 * maintenance's client clean-up (docs/oauth.md), and the nightly metrics sync's pacing and budgets
 * (docs/analytics.md).
 */
import Type from "typebox";
import { type ConfigArea, type EnvReader, Int } from "./env.ts";
import { SPEC_LIMITS } from "./limits.ts";

const MAX = 1_000_000_000;

export const WorkerEnv = Type.Object({
  WORKER_CONCURRENCY: Int(4, 1, 256, {
    description: "worker: jobs at a time (operations, and carousel renders)",
  }),
  OPERATION_DEADLINE_SECONDS: Int(900, 1, MAX, { description: "worker: hard deadline of one operation" }),
  WORKER_LEASE_SECONDS: Int(30, 3, 600, {
    description:
      'worker: lease on a running operation or carousel render, renewed by a heartbeat at a third of it (docs/operations.md "Leases", "Carousel render jobs")',
  }),
  APPROVAL_TTL_SECONDS: Int(1800, 1, MAX, {
    description: "operation lifecycle: an approval expires after this",
  }),
  STRANDED_AFTER_SECONDS: Int(600, 1, MAX, {
    description:
      "operation lifecycle: an approved or queued operation not started after this is dispatched again",
  }),
  QUEUE_RETRY_AFTER_SECONDS: Int(3600, SPEC_LIMITS.queueRetryAfterMinSeconds + 1, MAX, {
    description: "operation lifecycle: the queue's retry_after (must exceed 1800)",
  }),
  OAUTH_UNUSED_CLIENT_TTL_SECONDS: Int(7 * 24 * 3600, 3600, MAX, {
    description:
      "registered OAuth clients that never obtained a token are deleted by maintenance after this age (docs/oauth.md)",
  }),
  ANALYTICS_SYNC_PAUSE_MS: Int(200, 0, 60_000, {
    description: "metrics sync: pause between two calls of one account's job (one token), milliseconds",
  }),
  ANALYTICS_SYNC_CONCURRENCY: Int(8, 1, 64, {
    description:
      "metrics sync: account jobs each worker reads at a time; apart from `WORKER_CONCURRENCY` because they wait on the networks, not the CPU (bench/README.md: 10,000 accounts in 16 minutes with 2 workers at 8)",
  }),
  ANALYTICS_SYNC_MAX_WAIT_SECONDS: Int(120, 0, 3600, {
    description:
      "metrics sync: the longest wait a network asks for (Retry-After, Meta's usage headers, X's `x-rate-limit-reset`, YouTube's quota day) that is waited out, beyond which that token, or the whole app when the network says the app's budget ran out, waits for the next sync (docs/analytics.md)",
  }),
  ANALYTICS_YOUTUBE_DAILY_QUOTA: Int(10_000, 1, 100_000_000, {
    description:
      "YouTube Data API units per quota day (midnight Pacific) the metrics sync may spend for the app, counted across workers (`videos.list` of up to 50 videos: 1 unit); past it the app's YouTube accounts wait for the next sync, partial (docs/analytics.md)",
  }),
});

export interface WorkerConfig {
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
}

export const workerArea: ConfigArea = { title: "Worker and sync", schema: WorkerEnv };

/**
 * The worker and metrics sync settings.
 * @throws ConfigError naming a variable out of its bounds (QUEUE_RETRY_AFTER_SECONDS must exceed 1800).
 */
export function workerConfig(r: EnvReader): WorkerConfig {
  return {
    worker: {
      concurrency: r.num("WORKER_CONCURRENCY", 4),
      operationDeadlineSeconds: r.num("OPERATION_DEADLINE_SECONDS", 900),
      leaseSeconds: r.num("WORKER_LEASE_SECONDS", 30),
      approvalTtlSeconds: r.num("APPROVAL_TTL_SECONDS", 1800),
      strandedAfterSeconds: r.num("STRANDED_AFTER_SECONDS", 600),
      queueRetryAfterSeconds: r.num("QUEUE_RETRY_AFTER_SECONDS", 3600),
      unusedClientTtlSeconds: r.num("OAUTH_UNUSED_CLIENT_TTL_SECONDS", 7 * 24 * 3600),
    },
    analytics: {
      syncPauseMs: r.num("ANALYTICS_SYNC_PAUSE_MS", 200),
      syncConcurrency: r.num("ANALYTICS_SYNC_CONCURRENCY", 8),
      syncMaxWaitSeconds: r.num("ANALYTICS_SYNC_MAX_WAIT_SECONDS", 120),
      youtubeDailyQuotaUnits: r.num("ANALYTICS_YOUTUBE_DAILY_QUOTA", 10_000),
    },
  };
}
