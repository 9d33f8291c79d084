/**
 * The database setting: PostgreSQL's connection string, or the embedded PostgreSQL the service starts
 * itself (src/db/embedded.ts) when it is unset.
 */
import Type from "typebox";
import { type ConfigArea, type EnvReader, Str } from "./env.ts";

export const DatabaseEnv = Type.Object({
  DATABASE_URL: Str(
    { pattern: "^postgres(ql)?://" },
    {
      description: "PostgreSQL connection string",
      defaultText: "embedded PostgreSQL under `./.data/postgres` on port 54329",
    },
  ),
});

export interface DatabaseConfig {
  /** `postgres://` or `postgresql://` URL; undefined: the embedded PostgreSQL. */
  databaseUrl: string | undefined;
}

export const databaseArea: ConfigArea = { title: "Database", schema: DatabaseEnv };

/** The database setting. */
export function databaseConfig(r: EnvReader): DatabaseConfig {
  return { databaseUrl: r.picked.DATABASE_URL };
}
