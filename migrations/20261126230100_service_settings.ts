/**
 * Operator settings every instance reads from the database: one row per setting,
 * `key` and a JSON `value`. The first is `mcp_enabled` (`admin mcp enable|disable`,
 * src/domain/service/mcp-switch.ts), which overrides the MCP_ENABLED environment default. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("service_settings", (t) => {
    t.text("key").primary();
    t.jsonb("value").notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
