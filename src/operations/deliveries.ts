/**
 * The delivery loop of a worker process (docs/operations.md "The delivery loop"): every worker steps due
 * deliveries continuously in one lane per network (./delivery-lanes.ts), the lanes side by side, so posts due
 * at the same minute are published by all the workers at once, each network as fast as its limits allow:
 * - per network and worker at most `DELIVERY_NETWORK_CONCURRENCY` steps at once, each on another account;
 * - per account one step at a time on any worker (the account lease, src/domain/social/lanes-state.ts);
 * - a network's rate-limit answer pauses that network's lane (the app's budget, on every worker) or that
 *   account (its own budget), no other.
 * The loop fills the lanes' free places with due deliveries (src/domain/social/lanes-pick.ts), then waits
 * until a step ends (a little longer, so the places freed together are filled by one query) or
 * `DELIVERY_POLL_SECONDS` when nothing is due. Each step takes its delivery's lease (`runDeliveryStep`), so
 * any number of loops never step one delivery twice at once, and a created post is never created again (a
 * step that died is reconciled with the network first).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { AppContext } from "../context.ts";
import { pickLaneDeliveries } from "../domain/social/lanes-pick.ts";
import { DeliveryLanes } from "./delivery-lanes.ts";

/** After a step ended, how long the loop waits for others to end before it fills the places, ms. */
export const REFILL_GATHER_MS = 20;

export interface DeliveryLoopOptions {
  /** Once aborted, the loop starts no further step and returns after the running steps end. */
  signal: AbortSignal;
  /** Aborts the adapters' calls of the running steps (a shutdown that cannot wait longer). */
  stepSignal?: AbortSignal | undefined;
  /** Seconds to wait when nothing was due (default `DELIVERY_POLL_SECONDS`). */
  pollSeconds?: number | undefined;
  /** Steps at once per network (default `DELIVERY_NETWORK_CONCURRENCY`). */
  concurrency?: number | undefined;
  /** The lanes to fill (tests read their bounds); default new ones. */
  lanes?: DeliveryLanes | undefined;
}

/**
 * Fills the delivery lanes until `options.signal` is aborted (see the module comment). A failed look-up
 * (the database unreachable) is logged by error class and retried after the poll interval.
 * @returns when the signal was aborted and the running steps ended; never rejects.
 */
export async function runDeliveryLoop(app: AppContext, options: DeliveryLoopOptions): Promise<void> {
  const { signal } = options;
  const pollMs = (options.pollSeconds ?? app.config.social.deliveryPollSeconds) * 1000;
  const lanes =
    options.lanes ??
    new DeliveryLanes(app, options.concurrency ?? app.config.social.deliveryNetworkConcurrency);
  while (!signal.aborted) {
    let failed = false;
    try {
      await lanes.refreshStops();
      const free = lanes.free();
      const picked = free.size > 0 ? await pickLaneDeliveries(app, free, lanes.busyAccounts()) : [];
      for (const d of picked) {
        if (signal.aborted) break;
        lanes.start(d, options.stepSignal);
      }
    } catch (err) {
      failed = true;
      app.log.error(
        { errName: (err as Error)?.name },
        "delivery loop: look-up failed; retrying after the poll",
      );
    }
    if (signal.aborted) break;
    // Nothing new to start: wait for a place to free up (a running step) or the poll, whichever is first;
    // a paused network's lane is looked at again when its stop ends.
    const resume = lanes.nextResumeMs();
    const wait = Math.min(pollMs, resume ?? pollMs);
    if (failed || lanes.size === 0) await sleep(wait, undefined, { signal }).catch(() => {});
    else {
      await lanes.stepEnded(wait, signal);
      if (!signal.aborted) await sleep(REFILL_GATHER_MS, undefined, { signal }).catch(() => {});
    }
  }
  await lanes.drain();
}
