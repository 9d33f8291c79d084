/**
 * Claiming a delivery's step (service spec 3.1): the account lease (one step of an account at a time on any
 * worker), the delivery's lease (`locked_until`: one worker per delivery), the step, what follows a finished
 * delivery, and the first comment once its post is live.
 */
import type { AppContext } from "../../context.ts";
import type { DeliveryState } from "../../providers/social/network.ts";
import { observeDeliveryStep } from "./step-telemetry.ts";
import { withAccountLease } from "./lanes-state.ts";
import { postFirstComment } from "./first-comment.ts";
import { ACTIVE_STATES, scheduleStarted } from "./delivery-states.ts";
import { settleParents } from "./delivery-settle.ts";
import { type DeliveryRow, stepClaimed } from "./delivery-step.ts";

/**
 * Claims and runs one step of delivery `id` when it is due, unleased and active, while no other step of the
 * same account runs on any worker (the account lease, ./lanes-state.ts `withAccountLease`).
 * @returns the state after the step, or undefined when the delivery was not claimed (not due, leased by
 *   another worker, finished, or another step of its account under way).
 */
export async function runDeliveryStep(
  app: AppContext,
  id: string,
  signal?: AbortSignal,
): Promise<DeliveryState | undefined> {
  const lease = app.config.social.deliveryLeaseSeconds;
  return withAccountLease(app, id, lease, () => claimAndStep(app, id, signal));
}

async function claimAndStep(
  app: AppContext,
  id: string,
  signal: AbortSignal | undefined,
): Promise<DeliveryState | undefined> {
  const now = app.clock.now();
  const [row] = (await scheduleStarted(app.db("deliveries"))
    .where({ id })
    .whereIn("status", ACTIVE_STATES as DeliveryState[])
    .where((q) => q.whereNull("next_attempt_at").orWhere("next_attempt_at", "<=", now))
    .where((q) => q.whereNull("locked_until").orWhere("locked_until", "<", now))
    .update({ locked_until: new Date(now.getTime() + app.config.social.deliveryLeaseSeconds * 1000) })
    .returning([
      "id",
      "post_id",
      "social_account_id",
      "schedule_id",
      "status",
      "network_ids",
      "options",
      "attempt",
      "step_started_at",
      "content_fingerprint",
      "approved_link",
      "approved_board_id",
      "approved_format",
    ])) as DeliveryRow[];
  if (!row) return undefined;
  const state = await observeDeliveryStep(app, row, () => stepClaimed(app, row, signal));
  if (state === "published" || state === "failed") await settleParents(app, row);
  // The first comment goes under the post as soon as it is live (./first-comment.ts; later passes retry).
  if (state === "published") await postFirstComment(app, row.id, signal);
  return state;
}
