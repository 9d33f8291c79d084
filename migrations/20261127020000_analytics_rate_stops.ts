/**
 * Rate limit stops of the metrics sync shared by the workers (docs/analytics.md "Failures and rate limits";
 * src/domain/analytics/sync.ts): a network that says an APP's budget ran out (Meta's app limit, code 4 or
 * `X-App-Usage` at 100; YouTube's project quota) stops every account of that app until `until`; `scope_key`
 * is `{network}:app`. A token's own limit stops only that account's job and needs no row. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("analytics_rate_stops", (t) => {
    t.text("scope_key").primary();
    t.timestamp("until", { useTz: true }).notNullable();
    t.text("reason").notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
