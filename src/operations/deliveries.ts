/**
 * The delivery loop of a worker process (docs/operations.md "The delivery loop"): every worker steps due
 * deliveries continuously in one lane per network (./delivery-lanes.ts), the lanes side by side, so posts due
 * at the same minute are published by all the workers at once, each network as fast as its limits allow:
 * - per network and worker at most `DELIVERY_NETWORK_CONCURRENCY` steps at once, each on another account;
 * - per account one step at a time on any worker (the account lease, src/domain/social/lanes-state.ts);
 * - a network's rate-limit answer pauses that network's lane (the app's budget, on every worker) or that
 *   account (its own budget), no other.
 * The loop fills the lanes' free places with due deliveries (src/domain/social/lanes-pick.ts, looked up a
 * few places ahead and queued briefly, so one look-up serves several steps), then waits until a step ends
 * (a little longer, so the places freed together are filled at once) or `DELIVERY_POLL_SECONDS` when
 * nothing is due. Each step takes its delivery's lease (`runDeliveryStep`), so
 * any number of loops never step one delivery twice at once, and a created post is never created again (a
 * step that died is reconciled with the network first).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { AppContext } from "../context.ts";
import { type LaneDelivery, pickLaneDeliveries } from "../domain/social/lanes-pick.ts";
import type { Network } from "../providers/social/types.ts";
import { DeliveryLanes } from "./delivery-lanes.ts";

/** After a step ended, how long the loop waits for others to end before it fills the places, ms. */
export const REFILL_GATHER_MS = 20;
/** A look-up picks this many deliveries per free place of a network; the rest wait in the loop's queue. */
export const PICK_AHEAD = 3;
/** Queued deliveries older than this are looked up again rather than started, ms. */
const QUEUE_FRESH_MS = 2000;
/** How often the network stops are read again, ms. */
const STOPS_EVERY_MS = 500;

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
 * Due deliveries looked up ahead per network (at most PICK_AHEAD per free place, one per account), started
 * as places free up, so that one look-up serves several steps; a queue older than QUEUE_FRESH_MS is dropped.
 */
class PickQueue {
  private readonly queues = new Map<Network, { at: number; items: LaneDelivery[] }>();

  /**
   * Starts queued deliveries in `lanes`' free places (`signal` for their calls, `stop` ending their follow-up
   * steps); the networks still with free places after.
   */
  fill(lanes: DeliveryLanes, signal: AbortSignal | undefined, stop?: AbortSignal): Map<Network, number> {
    const now = Date.now();
    const free = lanes.free();
    for (const [network, places] of free) {
      const q = this.queues.get(network);
      if (!q || now - q.at > QUEUE_FRESH_MS) {
        this.queues.delete(network);
        continue;
      }
      let left = places;
      const kept: LaneDelivery[] = [];
      for (const d of q.items) {
        if (left > 0 && lanes.start(d, signal, stop)) left -= 1;
        else if (!lanes.busyAccounts().includes(d.socialAccountId)) kept.push(d);
      }
      q.items = kept;
      if (left > 0) free.set(network, left);
      else free.delete(network);
    }
    for (const n of [...free.keys()]) if ((this.queues.get(n)?.items.length ?? 0) > 0) free.delete(n);
    return free;
  }

  /** Replaces the queues of the networks in `picked` (the look-up of `wanted`). */
  replace(wanted: Iterable<Network>, picked: LaneDelivery[]): void {
    const at = Date.now();
    for (const n of wanted) this.queues.set(n, { at, items: [] });
    for (const d of picked) this.queues.get(d.network)?.items.push(d);
  }
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
  const queue = new PickQueue();
  let stopsAt = 0;
  while (!signal.aborted) {
    let failed = false;
    try {
      if (Date.now() - stopsAt >= STOPS_EVERY_MS) {
        await lanes.refreshStops();
        stopsAt = Date.now();
      }
      const free = queue.fill(lanes, options.stepSignal, signal);
      if (free.size > 0) {
        const ahead = new Map([...free].map(([n, places]) => [n, places * PICK_AHEAD]));
        queue.replace(free.keys(), await pickLaneDeliveries(app, ahead, lanes.busyAccounts()));
        if (!signal.aborted) queue.fill(lanes, options.stepSignal, signal);
      }
    } catch (err) {
      failed = true;
      app.log.error(
        { errName: (err as Error)?.name },
        "delivery loop: look-up failed; retrying after the poll",
      );
    }
    if (signal.aborted) break;
    // Wait for a place to free up (a running step) or the poll, whichever is first; a paused network's
    // lane is looked at again when its stop ends.
    const wait = Math.min(pollMs, lanes.nextResumeMs() ?? pollMs);
    if (failed || lanes.size === 0) await sleep(wait, undefined, { signal }).catch(() => {});
    else {
      await lanes.stepEnded(wait, signal);
      if (!signal.aborted) await sleep(REFILL_GATHER_MS, undefined, { signal }).catch(() => {});
    }
  }
  await lanes.drain();
}
