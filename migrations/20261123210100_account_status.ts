/**
 * Suspended and removed accounts (src/domain/account/suspension.ts): a workspace `status` (active |
 * suspended | removed; users already have one: active | disabled | suspended | removed), and a
 * `status_reason` on schedules and automations saying why a scheduled post or an enabled automation was
 * stopped. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workspaces", (t) => {
    t.text("status").notNullable().defaultTo("active");
  });
  await knex.schema.alterTable("schedules", (t) => {
    t.text("status_reason");
  });
  await knex.schema.alterTable("automations", (t) => {
    t.text("status_reason");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("automations", (t) => t.dropColumn("status_reason"));
  await knex.schema.alterTable("schedules", (t) => t.dropColumn("status_reason"));
  await knex.schema.alterTable("workspaces", (t) => t.dropColumn("status"));
}
