/**
 * The bounds of one worker's delivery lanes (docs/operations.md "The delivery loop"; the loop that fills
 * them: ./deliveries.ts): one lane per network, each running at most `concurrency` steps at once
 * (`DELIVERY_NETWORK_CONCURRENCY`), never two of one account (here, and on other workers through the account
 * lease of src/domain/social/lanes-state.ts), and paused while the network said the budget is spent:
 * - a stop of the APP's budget (HTTP 429 or a usage header with scope `app`: Meta's app limit and
 *   `X-App-Usage`, YouTube's project quota, X's app cap) pauses that network's lane on every worker
 *   (`delivery_network_stops`) until the time the network gave; the other networks' lanes go on;
 * - a stop of an ACCOUNT's budget (its token's limit: X's `x-rate-limit-*` per user, Meta's
 *   `X-Business-Use-Case-Usage` per Page / Instagram account) holds that account's waiting deliveries
 *   until then; the rest of its network goes on.
 * The stops are the networks' own answers, observed around each step (src/providers/social/usage.ts
 * `observeUsage`: a 2xx whose usage headers say the budget is spent, and the engine's rate-limit answers).
 */
import type { AppContext } from "../context.ts";
import { runDeliveryStep } from "../domain/social/engine.ts";
import {
  holdAccount,
  type NetworkStop,
  networkStops,
  recordNetworkStop,
} from "../domain/social/lanes-state.ts";
import type { LaneDelivery } from "../domain/social/lanes-pick.ts";
import { observeUsage, type UsageStop } from "../providers/social/usage.ts";
import { NETWORKS, type Network } from "../providers/social/types.ts";

/**
 * Steps of one delivery that may follow its first in the same place when each leaves it due at once (a
 * YouTube or TikTok upload after its session, X's media chunks): the rest wait for a look-up.
 */
export const CONTINUED_STEPS = 4;

/** One worker's lanes: what runs where, and which networks are paused (see the module comment). */
export class DeliveryLanes {
  private readonly app: AppContext;
  private readonly concurrency: number;
  private readonly running = new Map<Network, number>();
  private readonly busy = new Set<string>();
  private readonly steps = new Set<Promise<void>>();
  private stops = new Map<Network, NetworkStop>();
  private waiters: Array<() => void> = [];

  /** @param concurrency steps at once per network (1 or more). */
  constructor(app: AppContext, concurrency: number) {
    this.app = app;
    this.concurrency = Math.max(1, concurrency);
  }

  /** Reads the network stops in force (every worker's, from the database). */
  async refreshStops(): Promise<void> {
    this.stops = await networkStops(this.app);
  }

  /** The free places per network not paused now. */
  free(): Map<Network, number> {
    const now = this.app.clock.now().getTime();
    const out = new Map<Network, number>();
    for (const n of NETWORKS) {
      const stop = this.stops.get(n);
      if (stop && stop.until.getTime() > now) continue;
      const places = this.concurrency - (this.running.get(n) ?? 0);
      if (places > 0) out.set(n, places);
    }
    return out;
  }

  /** Milliseconds until the earliest network stop ends, or undefined without one. */
  nextResumeMs(): number | undefined {
    const now = this.app.clock.now().getTime();
    const ends = [...this.stops.values()].map((s) => s.until.getTime() - now).filter((ms) => ms > 0);
    return ends.length > 0 ? Math.min(...ends) : undefined;
  }

  /** The accounts whose step runs in this worker now. */
  busyAccounts(): string[] {
    return [...this.busy];
  }

  /** Steps running now. */
  get size(): number {
    return this.steps.size;
  }

  /** Steps running now on `network`. */
  runningOn(network: Network): number {
    return this.running.get(network) ?? 0;
  }

  /**
   * Starts the step of `d` unless its lane is full or paused or its account busy here. A step after which
   * the delivery is due again at once (an upload right after its session was opened) is followed in the same
   * place by the next one, a claim of its own (at most CONTINUED_STEPS more; not once the network said a
   * budget is spent, nor once `stop` is aborted).
   * @param signal handed to the adapter's calls.
   * @param stop once aborted, no further step of `d` is started.
   * @returns whether it started.
   */
  start(d: LaneDelivery, signal: AbortSignal | undefined, stop?: AbortSignal): boolean {
    if ((this.free().get(d.network) ?? 0) === 0 || this.busy.has(d.socialAccountId)) return false;
    this.running.set(d.network, this.runningOn(d.network) + 1);
    this.busy.add(d.socialAccountId);
    const step = this.continuing(d, signal, stop).finally(() => {
      this.running.set(d.network, this.runningOn(d.network) - 1);
      this.busy.delete(d.socialAccountId);
      this.steps.delete(step);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.steps.add(step);
    return true;
  }

  /** Resolves when a running step ends, or after `ms`, or when `signal` aborts. */
  async stepEnded(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      this.waiters.push(done);
    });
  }

  /** Resolves once every running step ended. */
  async drain(): Promise<void> {
    while (this.steps.size > 0) await Promise.allSettled([...this.steps]);
  }

  /** The step of `d`, and the next ones while it is due again at once (`start`). */
  private async continuing(d: LaneDelivery, signal: AbortSignal | undefined, stop: AbortSignal | undefined) {
    for (let turn = 0; turn <= CONTINUED_STEPS; turn++) {
      const again = await this.step(d, signal);
      if (!again || stop?.aborted || signal?.aborted) return;
    }
  }

  /** One step of `d`. @returns whether it is due again at once and no budget was said to be spent. */
  private async step(d: LaneDelivery, signal: AbortSignal | undefined): Promise<boolean> {
    const said: UsageStop[] = [];
    const outcome: { dueAgain?: boolean } = {};
    try {
      await observeUsage(
        (stop) => {
          said.push(stop);
          return false;
        },
        () => runDeliveryStep(this.app, d.id, signal, outcome),
      );
      for (const stop of said) await this.honour(d, stop);
      return said.length === 0 && outcome.dueAgain === true;
    } catch (err) {
      this.app.log.error(
        { delivery_id: d.id, network: d.network, errName: (err as Error)?.name },
        "delivery lane: step failed; the delivery is stepped again when due",
      );
      return false;
    }
  }

  /**
   * Pauses the network (app) or holds the account (token) until the stop ends: all its waiting deliveries,
   * or only those not started yet when the spent budget is the one of the call that starts a post.
   */
  private async honour(d: LaneDelivery, stop: UsageStop): Promise<void> {
    const until = new Date(this.app.clock.now().getTime() + Math.max(1, stop.seconds) * 1000);
    if (stop.scope === "app") {
      const reason = `the network said the app's budget is spent (${stop.source})`;
      const current = this.stops.get(d.network);
      if (!current || current.until < until) this.stops.set(d.network, { until, reason });
      await recordNetworkStop(this.app, d.network, { until, reason });
    } else await holdAccount(this.app, d.socialAccountId, until, { startsOnly: stop.startsOnly === true });
  }
}
