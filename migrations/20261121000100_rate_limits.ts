/** Shared rate-limit counters (rate-limiter-flexible's Postgres store layout), service spec 8. */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table if not exists rate_limits (
    key varchar(255) primary key,
    points integer not null default 0,
    expire bigint
  )`);
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only");
}
