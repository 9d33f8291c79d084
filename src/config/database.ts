/**
 * The database setting: PostgreSQL's connection string, or the embedded PostgreSQL the service starts
 * itself (src/db/embedded.ts) when it is unset.
 */
import Type from "typebox";
import { type ConfigArea, type EnvReader, Int, Str } from "./env.ts";

export const DatabaseEnv = Type.Object({
  DATABASE_URL: Str(
    { pattern: "^postgres(ql)?://" },
    {
      description: "PostgreSQL connection string",
      defaultText: "embedded PostgreSQL under `./.data/postgres` on port 54329",
    },
  ),
  DATABASE_POOL_SIZE: Int(10, 2, 200, {
    description:
      "connections of each process's main pool (besides 6 for the rate-limit counters and the job queue's own); a worker's delivery lanes run up to 7 x `DELIVERY_NETWORK_CONCURRENCY` steps at once, each a few statements between its network calls, so a worker whose steps wait for connections needs more (docs/operations.md \"The delivery loop\"). Every process's connections together must stay within PostgreSQL's `max_connections`",
  }),
});

export interface DatabaseConfig {
  /** `postgres://` or `postgresql://` URL; undefined: the embedded PostgreSQL. */
  databaseUrl: string | undefined;
  /** `DATABASE_POOL_SIZE`: connections of the main pool (src/db/knex.ts `createDb`). */
  databasePoolSize: number;
}

export const databaseArea: ConfigArea = { title: "Database", schema: DatabaseEnv };

/** The database setting. */
export function databaseConfig(r: EnvReader): DatabaseConfig {
  return { databaseUrl: r.picked.DATABASE_URL, databasePoolSize: r.num("DATABASE_POOL_SIZE", 10) };
}
