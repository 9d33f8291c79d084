/**
 * A lease on automation runs (docs/operations.md "Automation runs that lose their worker"; service spec 3.1
 * rule 4): `automation_runs.lease_expires_at` is set when a run starts generating and extended by its
 * process while it lasts; a `running` run whose lease ran out lost its worker and is ended `failed` by the
 * reapers (src/domain/automations/crashed-runs.ts). Runs started before this column have none and are left
 * as they are. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("automation_runs", (t) => {
    t.timestamp("lease_expires_at", { useTz: true }).nullable();
  });
  await knex.raw(
    `create index automation_runs_running_lease on automation_runs (lease_expires_at) where status = 'running'`,
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
