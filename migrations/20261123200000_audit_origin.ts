/**
 * Audit rows of background executions (service spec 2.8): `audit_records.origin` says where the row was
 * written: `call` for a tools/call answered by the MCP endpoint (every existing row), `worker` for the
 * execution of a queued or approved operation by a worker. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("audit_records", (t) => {
    t.text("origin").notNullable().defaultTo("call");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("audit_records", (t) => {
    t.dropColumn("origin");
  });
}
