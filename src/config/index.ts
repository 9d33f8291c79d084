/**
 * Service configuration: every setting of DESIGN.md section 5, read from the environment once at start and
 * validated with TypeBox. One module per area owns its variables' schema, defaults and docstrings
 * (./server.ts, ./database.ts, ./keys.ts, ./mcp-oauth.ts, ./limits.ts, ./networks.ts, ./ai.ts, ./media.ts,
 * ./worker.ts); `loadConfig` composes them and fails on the first bad value with one line naming the
 * variable. The README's configuration table is generated from the same schemas (codegen/config-table.ts).
 *
 * Units: all durations are seconds unless the name says otherwise; sizes are bytes.
 */
import Type, { type Static } from "typebox";
import { Value } from "typebox/value";
import { AiEnv, type AiConfig, aiArea, aiConfig } from "./ai.ts";
import { DatabaseEnv, type DatabaseConfig, databaseArea, databaseConfig } from "./database.ts";
import { type ConfigArea, ConfigError, envReader } from "./env.ts";
import { KeysEnv, type KeysConfig, keysArea, keysConfig } from "./keys.ts";
import { LimitsEnv, type LimitsConfig, limitsArea, limitsConfig } from "./limits.ts";
import { McpOAuthEnv, type McpOAuthConfig, mcpOAuthArea, mcpOAuthConfig } from "./mcp-oauth.ts";
import { MediaEnv, type MediaConfig, mediaArea, mediaConfig } from "./media.ts";
import { NetworksEnv, type NetworksConfig, networksArea, networksConfig } from "./networks.ts";
import { ServerEnv, type ServerConfig, serverArea, serverConfig } from "./server.ts";
import { WorkerEnv, type WorkerConfig, workerArea, workerConfig } from "./worker.ts";

export { ConfigError, isLoopbackHost } from "./env.ts";
export type { PasswordHashing } from "./keys.ts";
export { type Budgets, SPEC_LIMITS } from "./limits.ts";
export { DEFAULT_LINKEDIN_VERSION, SOCIAL_CREDENTIAL_NETWORKS } from "./networks.ts";
export { parseTrustProxy } from "./server.ts";

/** The settings areas in the order `loadConfig` reads them and the README lists them. */
export const CONFIG_AREAS: readonly ConfigArea[] = [
  serverArea,
  databaseArea,
  keysArea,
  mcpOAuthArea,
  limitsArea,
  networksArea,
  aiArea,
  mediaArea,
  workerArea,
];

/** Raw environment schema of every area: names are the env variable names, values strings or absent. */
export const EnvSchema = Type.Object({
  ...ServerEnv.properties,
  ...DatabaseEnv.properties,
  ...KeysEnv.properties,
  ...McpOAuthEnv.properties,
  ...LimitsEnv.properties,
  ...NetworksEnv.properties,
  ...AiEnv.properties,
  ...MediaEnv.properties,
  ...WorkerEnv.properties,
});

export type Env = Static<typeof EnvSchema>;

/** The resolved configuration, one part per area. URLs have no trailing slash. */
export interface Config
  extends ServerConfig,
    DatabaseConfig,
    KeysConfig,
    McpOAuthConfig,
    LimitsConfig,
    NetworksConfig,
    AiConfig,
    MediaConfig,
    WorkerConfig {}

/**
 * Reads and validates the configuration.
 * @param env the environment (defaults to process.env); unknown variables are ignored.
 * @throws ConfigError naming the first bad variable: a value its schema refuses first, then each area's
 * own rules in the order of `CONFIG_AREAS`.
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
  const r = envReader(picked, EnvSchema);
  const server = serverConfig(r);
  return {
    ...server,
    ...databaseConfig(r),
    ...keysConfig(r),
    ...mcpOAuthConfig(r, server),
    ...limitsConfig(r),
    ...networksConfig(r, server.publicBaseUrl),
    ...aiConfig(r),
    ...mediaConfig(r, server.dataDir),
    ...workerConfig(r),
  };
}
