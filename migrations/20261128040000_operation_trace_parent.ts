/**
 * The W3C `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header) of the `tools/call` that
 * created an operation, recorded while tracing is on (src/observability/tracing.ts; docs/operations.md
 * "Traces"): the approval decided later in the browser, the worker's execution and the delivery steps of the
 * operation continue that trace. Null when tracing was off. It names a span, never a secret. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("operations", (t) => {
    t.text("trace_parent");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
