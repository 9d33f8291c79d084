/**
 * The metrics sync as queued work (src/domain/analytics/sync-run.ts, docs/analytics.md "Runs"):
 * - `analytics_sync_runs`: one row per run, keyed by `run_key` (the night's date in America/New_York for the
 *   nightly run, `now-{ISO time}` for `admin analytics sync --now`), its time `synced_at` (the `synced_at`
 *   of everything it saves) and progress: accounts planned, done, failed, skipped; `finished_at` once every
 *   planned account ended;
 * - `analytics_sync_jobs`: one row per account of a run (unique per run and account): `queued` ->
 *   `running` (a worker's lease, `attempts`) -> `done` | `failed` | `skipped`. A job whose lease ran out is
 *   queued again for another worker; a job that ended is never read again in that run.
 * Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("analytics_sync_runs", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.text("run_key").notNullable().unique();
    t.timestamp("synced_at", { useTz: true }).notNullable();
    t.integer("accounts_planned").notNullable().defaultTo(0);
    t.integer("accounts_done").notNullable().defaultTo(0);
    t.integer("accounts_failed").notNullable().defaultTo(0);
    t.integer("accounts_skipped").notNullable().defaultTo(0);
    t.timestamp("finished_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable("analytics_sync_jobs", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("run_id").notNullable().references("id").inTable("analytics_sync_runs").onDelete("cascade");
    t.uuid("social_account_id").notNullable().references("id").inTable("social_accounts").onDelete("cascade");
    t.text("network").notNullable();
    t.text("status").notNullable().defaultTo("queued");
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("lease_expires_at", { useTz: true });
    t.jsonb("counts");
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["run_id", "social_account_id"]);
    t.index(["status", "lease_expires_at"]);
  });
  await knex.raw(
    `alter table analytics_sync_jobs add constraint analytics_sync_jobs_status check (status in ('queued', 'running', 'done', 'failed', 'skipped'))`,
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
