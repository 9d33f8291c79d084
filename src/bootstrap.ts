/**
 * Builds the application context: config -> keys -> database (embedded when DATABASE_URL is unset) ->
 * migrations. Used by the CLI; tests use test/helpers/app.ts which builds the same context on a fresh
 * database.
 */
import "./db/types.ts";
import { type Config, loadConfig } from "./config/index.ts";
import { type AppContext, type Clock, systemClock } from "./context.ts";
import { createSealer } from "./crypto/seal.ts";
import { startEmbeddedPostgres } from "./db/embedded.ts";
import { createChangeFeed } from "./db/change-feed.ts";
import { createDb, migrate } from "./db/knex.ts";
import { resolveKeys } from "./keys.ts";
import { createLogger, type Logger } from "./log.ts";
import { enableMetrics } from "./observability/metrics.ts";
import { checkProviderModels, unlistedModelError } from "./providers/model-check.ts";
import { buildProviders, type Providers } from "./providers/providers.ts";

export interface Booted {
  ctx: AppContext;
  /** True when the database is the embedded PostgreSQL (DATABASE_URL unset). */
  embeddedDb: boolean;
  /** Closes the pool and stops the embedded Postgres if one was started. */
  close(): Promise<void>;
}

/**
 * Boots the context. `options.migrate` applies pending migrations (default true).
 * @throws ConfigError for a bad setting (or, with `checkProviders`, a model its provider does not list);
 *   database errors when Postgres is unreachable.
 */
export async function boot(
  options: {
    env?: Record<string, string | undefined>;
    migrate?: boolean;
    clock?: Clock;
    logger?: Logger;
    config?: Config;
    /** Replaces providers that config would select (tests bring fakes at the boundary). */
    providers?: Partial<Providers>;
    /**
     * Checks each openai-compatible provider's model against `GET {base}/models` before anything starts
     * (src/providers/model-check.ts): a model not listed stops the boot with a ConfigError; a gateway
     * without the endpoint, or one that cannot be reached, is logged as a warning. Default false.
     */
    checkProviders?: boolean;
  } = {},
): Promise<Booted> {
  const config = options.config ?? loadConfig(options.env);
  // Metrics are kept only by a process that serves them (METRICS_PORT), from before anything is counted.
  if (config.observability.metricsPort !== undefined) enableMetrics();
  const log = options.logger ?? createLogger(config.logLevel);
  if (options.checkProviders) {
    const checks = await checkProviderModels(config);
    const refused = unlistedModelError(checks);
    if (refused) throw refused;
    for (const c of checks)
      if (c.status !== "listed") log.warn({ variable: c.variable, status: c.status }, c.message);
  }
  const keys = await resolveKeys(config, log);
  let stopEmbedded: (() => Promise<void>) | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres(config.dataDir);
    url = embedded.url;
    stopEmbedded = embedded.stop;
    log.info("embedded PostgreSQL started");
  }
  const db = createDb(url, config.databasePoolSize);
  const asyncCommitDb = createDb(url, 6, { asyncCommit: true });
  if (options.migrate !== false) await migrate(db);
  const sealer = createSealer(keys.appKeys);
  const clock = options.clock ?? systemClock;
  if (config.social.httpOverride)
    log.warn(
      { social_http_override: config.social.httpOverride },
      "SOCIAL_HTTP_OVERRIDE is set: network adapter requests go to this address instead of the networks (testing only)",
    );
  if (config.fetchAllowLoopbackPort !== undefined)
    log.warn(
      { fetch_allow_loopback_port: config.fetchAllowLoopbackPort },
      "FETCH_ALLOW_LOOPBACK_PORT is set: product page fetches may reach this loopback port (testing only)",
    );
  const ctx: AppContext = {
    config: { ...config, databaseUrl: url },
    db,
    asyncCommitDb,
    log,
    keys,
    sealer,
    clock,
    providers: buildProviders(config, options.providers, { sealer, now: () => clock.now() }),
    queue: undefined,
    changes: createChangeFeed(url, log),
  };
  return {
    ctx,
    embeddedDb: !config.databaseUrl,
    async close() {
      await ctx.changes.close();
      await db.destroy();
      await asyncCommitDb.destroy();
      if (stopEmbedded) await stopEmbedded();
    },
  };
}
