/**
 * Saved analytics from the networks' own metrics (service spec 2.7 analytics rules, 6.3;
 * src/domain/analytics/sync.ts):
 * - `post_metrics.reach`: unique accounts reached, where the network reports it;
 * - `source` on both metrics tables: `network` (read from the network's API) or `sandbox` (the sandbox
 *   connector's numbers, not real). Rows written before this migration came from the sandbox counters and
 *   are labelled `sandbox`;
 * - the sync status of each account and delivery: `synced_at` becomes the time of the last successful sync
 *   (null when none succeeded yet), `last_error` the reason the last attempt failed (null after a success;
 *   the saved values are then those of `synced_at`), `attempted_at` the time of the last attempt.
 * Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("post_metrics", (t) => {
    t.bigInteger("reach");
  });
  for (const table of ["account_metrics", "post_metrics"]) {
    await knex.schema.alterTable(table, (t) => {
      t.text("source").notNullable().defaultTo("sandbox");
      t.text("last_error");
      t.timestamp("attempted_at", { useTz: true });
    });
    await knex.raw(`alter table ${table} alter column source drop default`);
    await knex.raw(
      `alter table ${table} add constraint ${table}_source check (source in ('network', 'sandbox'))`,
    );
    await knex.raw(`alter table ${table} alter column synced_at drop not null`);
    await knex(table).update({ attempted_at: knex.ref("synced_at") });
  }
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
