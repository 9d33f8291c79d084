/**
 * Scheduled automation runs and operation housekeeping (service spec 6.3, 8; docs/operations.md).
 * - `automation_runs.scheduled_slot`: the daily time slot (an instant) a `schedule` run belongs to; the
 *   partial unique index on (automation_id, scheduled_slot) makes "one run per slot" hold across workers
 *   and repeated passes (manual runs leave it null).
 * - `scheduler_passes`: the watermark of each periodic pass (`automations`: the instant up to which
 *   daily slots were looked at), so a pass only starts slots that came due since the last one.
 * - indexes for the enabled-automations scan and the idempotency-record retention sweep.
 * Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("automation_runs", (t) => {
    t.timestamp("scheduled_slot", { useTz: true });
  });
  await knex.raw(
    `create unique index automation_runs_slot on automation_runs (automation_id, scheduled_slot)
     where scheduled_slot is not null`,
  );
  await knex.schema.createTable("scheduler_passes", (t) => {
    t.text("name").primary();
    t.timestamp("last_pass_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    `create index automations_enabled on automations (id)
     where status = 'enabled' and deleted_at is null`,
  );
  await knex.raw("create index idempotency_records_created on idempotency_records (created_at)");
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
