/**
 * The delivery lanes' shared state (docs/operations.md "The delivery loop"; src/domain/social/lanes-state.ts):
 * - `delivery_account_leases`: one row while a step of one of the account's deliveries runs, on any worker
 *   (`holder` the step's own id, `locked_until` its lease end), so no two steps of one account ever run at
 *   once; a worker that died leaves a row whose `locked_until` passed, which the next step takes over;
 * - `delivery_network_stops`: a network whose answer said the APP's budget is spent (HTTP 429 / a usage
 *   header with scope `app`) pauses every worker's lane of that network until `until`. Apart from the
 *   metrics sync's `analytics_rate_stops`, which also holds the sync's own YouTube quota share.
 * Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("delivery_account_leases", (t) => {
    t.uuid("social_account_id").primary().references("social_accounts.id").onDelete("cascade");
    t.uuid("holder").notNullable();
    t.timestamp("locked_until", { useTz: true }).notNullable();
  });
  await knex.schema.createTable("delivery_network_stops", (t) => {
    t.text("network").primary();
    t.timestamp("until", { useTz: true }).notNullable();
    t.text("reason").notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
