/**
 * Worker leases on running operations (docs/operations.md "Leases"): the worker that claims an operation
 * holds it until `lease_expires_at` and extends it while the handler runs; a lease that runs out means the
 * worker died (SIGKILL, lost machine). Workers reap expired leases every few seconds, long before the
 * operation deadline. The partial index serves that scan. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("operations", (t) => {
    t.timestamp("lease_expires_at", { useTz: true });
  });
  await knex.raw(
    "create index operations_running_lease on operations (lease_expires_at) where state = 'running'",
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
