/**
 * Operations and idempotency additions (service spec 2.5, 2.6, 3.1).
 * - `description_sealed`: the approval page's plain-word description (summary, resource labels with ids,
 *   destinations). Sealed like the arguments because it names the records the request touches.
 * - `accepted_sealed`: what a queued tool's `accept` returned; `execute` receives it in the worker.
 * - `tool_scope`: the scope of the tool that started the operation (`get_job_status` also requires it).
 * - `request_id`, `credits_charged`: the starting call's request id and the credits `accept` charged.
 * - `error_details`: a ToolError's structured details (JSON pointers etc., never free text from providers).
 * pg-boss keeps its own schema (`pgboss`), created by pg-boss itself at start.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("operations", (t) => {
    t.text("description_sealed");
    t.text("accepted_sealed");
    t.text("tool_scope");
    t.uuid("request_id");
    t.integer("credits_charged");
    t.jsonb("error_details");
    t.index(["user_id", "created_at"], "operations_user_created");
  });
  await knex.raw(
    `create index operations_maintenance on operations (state, updated_at)
     where state in ('approval_required', 'approved', 'queued', 'running', 'dispatch_failed')`,
  );
  await knex.raw(
    "create index idempotency_records_operation on idempotency_records (operation_id) where operation_id is not null",
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
