/**
 * The delivery engine (service spec 2.7, 3.1; docs/social.md): each delivery is a state machine
 * `pending -> uploading -> processing -> published | failed`, plus `outcome_unknown`, persisted at every
 * step. One step = one call of the network adapter's `step` (src/providers/social/network.ts), which saves
 * the network's ids (containers, publish_id, upload session) through `save` the moment they exist.
 *
 * Guarantees:
 * - A step runs under a lease (`locked_until`), so two workers never step the same delivery at once.
 * - `step_started_at` is set before the adapter is called and cleared after the result is saved. A worker
 *   that dies mid-step leaves it set: the next worker treats the delivery as `outcome_unknown` and asks the
 *   network (`reconcile`) before doing anything else. A create call is never retried blindly.
 * - `NetworkTransientError` after a create -> `outcome_unknown`; before a create -> retried with
 *   exponential backoff (5 s doubling, at most 15 min) up to `MAX_ATTEMPTS`, then `failed`.
 * - `NetworkRateLimitError` -> the same step again after `retryAfterSeconds` (Retry-After / usage headers),
 *   reported to the caller observing usage (src/providers/social/usage.ts `observeUsage`: the delivery lanes).
 * - No two steps of one account run at once, on any worker (the account lease, ./lanes-state.ts).
 * - `NetworkAuthError` -> the account becomes `needs_reconnect`, the delivery `failed` with the reason;
 *   other accounts are untouched. Transient errors never disconnect an account.
 * - The account's publishing limit (optional `publishingLimit`, Instagram `content_publishing_limit`) is
 *   checked before the first create; a used-up quota fails the delivery with the numbers.
 * - A delivery made by an approval carries its binding (./content.ts): before each step (every network
 *   create happens in a step) the post is compared with the approved fingerprint; a post that changed since
 *   fails the delivery with a plain reason and nothing reaches the network. The Pinterest link and board are
 *   the approved ones.
 * - A deleted post is never published: the step that can create something starts only while the post's
 *   `deleted_at` is null (`startStep`); otherwise the delivery fails with a reason saying so.
 *
 * The parts: ./delivery-claim.ts claims a step under its leases, ./delivery-step.ts runs it and saves the
 * result, ./delivery-settle.ts updates the post and schedule after it, ./delivery-states.ts holds the shared
 * rules; this module runs them for given deliveries (`advanceDeliveries`) and in passes (`runDeliveryPass`).
 */
import type { AppContext } from "../../context.ts";
import type { DeliveryState } from "../../providers/social/network.ts";
import { runDueFirstComments } from "./first-comment.ts";
import { runDeliveryStep } from "./delivery-claim.ts";
import { ACTIVE_STATES, scheduleStarted } from "./delivery-states.ts";

export { runDeliveryStep } from "./delivery-claim.ts";
export { refreshPostStatus } from "./delivery-settle.ts";
export {
  ACTIVE_STATES,
  backoffSeconds,
  CANCELED_REASON,
  MAX_ATTEMPTS,
  scheduleStarted,
} from "./delivery-states.ts";

/**
 * Runs the steps of `ids` until each is finished or must wait, for at most `budgetSeconds` of the app's clock
 * (the system's time in the service; then the periodic pass, `runDueDeliveries`, carries on), waiting on
 * that clock between steps (`Clock.sleep`). Used right after publish_post so a sandbox or fast network
 * answers with `published` in the same call.
 */
export async function advanceDeliveries(
  app: AppContext,
  ids: readonly string[],
  options: { budgetSeconds?: number; signal?: AbortSignal | undefined } = {},
): Promise<void> {
  const deadline = app.clock.now().getTime() + (options.budgetSeconds ?? 20) * 1000;
  for (;;) {
    for (const id of ids) {
      if (options.signal?.aborted) return;
      await runDeliveryStep(app, id, options.signal);
    }
    const open: Array<{ next_attempt_at: Date | null; locked_until: Date | null }> = await scheduleStarted(
      app.db("deliveries"),
    )
      .whereIn("id", ids)
      .whereIn("status", ACTIVE_STATES as DeliveryState[])
      .select("next_attempt_at", "locked_until");
    const now = app.clock.now().getTime();
    const waits = open.map((d) =>
      Math.max(0, (d.next_attempt_at?.getTime() ?? now) - now, (d.locked_until?.getTime() ?? now) - now),
    );
    if (waits.length === 0) return;
    const wait = Math.min(...waits);
    if (now + wait > deadline) return;
    if (wait > 0) await app.clock.sleep(wait, options.signal).catch(() => {});
  }
}

/** What one delivery pass did: deliveries it picked as due (at most its limit) and those it stepped. */
export interface DeliveryPassReport {
  /** Due deliveries the pass picked; equal to the limit when more may be due (a full pass). */
  picked: number;
  /** Picked deliveries whose step this pass ran (the others were claimed by another worker meanwhile). */
  stepped: number;
}

/**
 * One pass of the delivery worker: steps every due delivery (active, due, not leased, or leased by a worker
 * that died), at most `limit`. Run once a minute by the scheduler pass (a backstop of the workers' delivery
 * lanes, src/operations/deliveries.ts) and by tests.
 * Fair across networks (docs/operations.md "The delivery loop"): the `limit` is shared round-robin between the networks that have due
 * deliveries (each network's own oldest first), and each network's deliveries are stepped in their own lane,
 * the lanes side by side, so one slow network does not hold the others. Each step still takes the delivery's
 * lease (`runDeliveryStep`), so two workers never step the same delivery at once; one its account's lease
 * kept from a step (another step of the account under way) is tried again after the lane's others, as long
 * as the lane still steps some.
 * @param options.limit deliveries picked at most (default 50).
 * @param options.stop once aborted, no further step is started (the running ones finish).
 * @param options.signal handed to the adapters' calls of the steps (aborts them).
 * @returns the deliveries picked and stepped.
 */
export async function runDeliveryPass(
  app: AppContext,
  options: { limit?: number; stop?: AbortSignal | undefined; signal?: AbortSignal | undefined } = {},
): Promise<DeliveryPassReport> {
  const limit = options.limit ?? 50;
  const { stop, signal } = options;
  const now = app.clock.now();
  const ranked = scheduleStarted(app.db("deliveries"))
    .join("social_accounts", "social_accounts.id", "deliveries.social_account_id")
    .whereIn("deliveries.status", ACTIVE_STATES as DeliveryState[])
    .where((q) => q.whereNull("deliveries.next_attempt_at").orWhere("deliveries.next_attempt_at", "<=", now))
    .where((q) => q.whereNull("deliveries.locked_until").orWhere("deliveries.locked_until", "<", now))
    .select(
      "deliveries.id",
      "social_accounts.network",
      "deliveries.next_attempt_at",
      app.db.raw(
        "row_number() over (partition by social_accounts.network order by deliveries.next_attempt_at asc nulls first, deliveries.id) as turn",
      ),
    )
    .as("ranked");
  const due: Array<{ id: string; network: string }> = await app.db
    .from(ranked)
    .orderBy([{ column: "turn" }, { column: "network" }])
    .limit(limit)
    .select("id", "network");
  const lanes = new Map<string, string[]>();
  for (const d of due) lanes.set(d.network, [...(lanes.get(d.network) ?? []), d.id]);
  let n = 0;
  await Promise.all(
    [...lanes.values()].map(async (ids) => {
      // A delivery not claimed is tried again after the lane's others while the lane makes progress: another
      // worker's step of the same account (the account lease) may have held it at the first try.
      let left = ids;
      while (left.length > 0) {
        const skipped: string[] = [];
        for (const id of left) {
          if (stop?.aborted || signal?.aborted) return;
          if ((await runDeliveryStep(app, id, signal)) !== undefined) n += 1;
          else skipped.push(id);
        }
        if (skipped.length === left.length) return;
        left = skipped;
      }
    }),
  );
  if (!stop?.aborted && !signal?.aborted) n += await runDueFirstComments(app, { limit, stop, signal });
  return { picked: due.length, stepped: n };
}

/**
 * One delivery pass (`runDeliveryPass`) of at most `limit` deliveries, `signal` both stopping it between
 * steps and aborting the adapters' calls.
 * @returns how many deliveries were stepped.
 */
export async function runDueDeliveries(app: AppContext, limit = 50, signal?: AbortSignal): Promise<number> {
  return (await runDeliveryPass(app, { limit, stop: signal, signal })).stepped;
}
