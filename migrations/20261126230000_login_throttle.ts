/**
 * The per-email sign-in throttle (src/domain/account/login-throttle.ts): one row per
 * email address (`key`: the SHA-256 of the lower-cased address, never the address), the number of
 * sign-in attempts since the last success that were not successful (`failures`) and when the last one
 * started (`last_failure_at`). Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("login_throttle", (t) => {
    t.text("key").primary();
    t.integer("failures").notNullable();
    t.timestamp("last_failure_at", { useTz: true }).notNullable();
  });
  await knex.raw("create index login_throttle_last_failure on login_throttle (last_failure_at)");
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
