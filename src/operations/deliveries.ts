/**
 * The delivery loop of a worker process (docs/operations.md "The delivery loop"): every worker
 * steps due deliveries continuously, so posts due at the same minute are published by all the workers at
 * once instead of 50 a minute by the scheduler pass. The loop runs delivery passes
 * (src/domain/social/engine.ts `runDeliveryPass`: fair across networks, one lane per network) back to back
 * while a pass was full (it picked its whole limit and stepped some), and otherwise waits
 * `DELIVERY_POLL_SECONDS` before the next pass. Each step takes its delivery's lease (`runDeliveryStep`),
 * so any number of loops never step one delivery twice at once, and a created post is never created again
 * (a step that died is reconciled with the network first).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { AppContext } from "../context.ts";
import { runDeliveryPass } from "../domain/social/engine.ts";

/** Deliveries picked per pass of the loop (shared round-robin between the networks that have due ones). */
export const DELIVERY_PASS_SIZE = 50;

export interface DeliveryLoopOptions {
  /** Once aborted, the loop starts no further step or pass and returns after the running steps end. */
  signal: AbortSignal;
  /** Aborts the adapters' calls of the running steps (a shutdown that cannot wait longer). */
  stepSignal?: AbortSignal | undefined;
  /** Seconds between two passes when the last one was not full (default `DELIVERY_POLL_SECONDS`). */
  pollSeconds?: number | undefined;
  /** Deliveries per pass (default DELIVERY_PASS_SIZE). */
  passSize?: number | undefined;
}

/**
 * Runs delivery passes until `options.signal` is aborted (see the module comment). A pass that throws (the
 * database unreachable) is logged by error class and the loop waits the poll interval before the next.
 * @returns when the signal was aborted and the running pass ended; never rejects.
 */
export async function runDeliveryLoop(app: AppContext, options: DeliveryLoopOptions): Promise<void> {
  const { signal } = options;
  const pollMs = (options.pollSeconds ?? app.config.social.deliveryPollSeconds) * 1000;
  const limit = options.passSize ?? DELIVERY_PASS_SIZE;
  while (!signal.aborted) {
    let full = false;
    try {
      const pass = await runDeliveryPass(app, { limit, stop: signal, signal: options.stepSignal });
      full = pass.picked >= limit && pass.stepped > 0;
    } catch (err) {
      app.log.error({ errName: (err as Error)?.name }, "delivery loop: pass failed; retrying after the poll");
    }
    if (!full && !signal.aborted) await sleep(pollMs, undefined, { signal }).catch(() => {});
  }
}
