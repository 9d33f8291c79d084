/**
 * What a delivery step tells the metrics and traces (docs/operations.md "Metrics", "Traces"), around one step
 * of the delivery engine (./engine.ts `runDeliveryStep`):
 * - metrics: a step that ends the delivery `published`, `failed` or `outcome_unknown` counts in
 *   `social_mcp_deliveries_total{network,outcome}`, and a publication's time from its due time (its
 *   schedule's time, or its creation) in `social_mcp_delivery_due_to_published_seconds`;
 * - traces: the step is a span `delivery step`, a child of the span that runs it (the worker's execution of
 *   publish_post steps it at once) or, when a delivery loop steps it later, of the `tools/call` that created
 *   its operation (the operation's `trace_parent`); the adapter's network calls are the step's children.
 * With metrics and tracing off, the step runs as it is and nothing is read.
 */
import type { AppContext } from "../../context.ts";
import { metricsEnabled, observeDelivery } from "../../observability/metrics.ts";
import { contextOf, hasActiveSpan, inSpan, tracer } from "../../observability/tracing.ts";
import type { DeliveryState } from "../../providers/social/network.ts";

/** The outcomes counted: the states a step can end a delivery in that need no further step, or a look. */
const OUTCOMES = new Set<DeliveryState>(["published", "failed", "outcome_unknown"]);

/**
 * Runs `step` (the claimed step of delivery `row`) with its metrics and span.
 * @returns the state `step` returns; rethrows what it throws.
 */
export async function observeDeliveryStep(
  app: AppContext,
  row: { id: string; status: DeliveryState },
  step: () => Promise<DeliveryState>,
): Promise<DeliveryState> {
  if (!tracer && !metricsEnabled()) return step();
  const info: { network: string; due: Date; trace_parent: string | null } | undefined = await app
    .db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .leftJoin("operations as o", "o.id", "d.operation_id")
    .where("d.id", row.id)
    .first("a.network", app.db.raw("coalesce(d.scheduled_for, d.created_at) as due"), "o.trace_parent");
  const counted = async (): Promise<DeliveryState> => {
    const state = await step();
    if (info && state !== row.status && OUTCOMES.has(state))
      observeDelivery(
        info.network,
        state as "published" | "failed" | "outcome_unknown",
        (app.clock.now().getTime() - new Date(info.due).getTime()) / 1000,
      );
    return state;
  };
  if (!tracer) return counted();
  return inSpan(
    "delivery step",
    {
      "social_mcp.delivery.id": row.id,
      "social_mcp.network": info?.network ?? "unknown",
      "social_mcp.delivery.from": row.status,
    },
    async (span) => {
      const state = await counted();
      span.setAttribute("social_mcp.delivery.state", state);
      return state;
    },
    hasActiveSpan() ? undefined : contextOf(info?.trace_parent),
  );
}
