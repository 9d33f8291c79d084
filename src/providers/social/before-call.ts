/**
 * Work that must be done before an adapter's next network request: the delivery step's network ids not yet
 * written (src/domain/social/delivery-step.ts). An id the network named is written before the adapter sends
 * any further request, or with the step's last update of the delivery when none follows, never later
 * (service spec 3.1: an id is saved before anything else can happen on the network side).
 */
import { AsyncLocalStorage } from "node:async_hooks";

const hooks = new AsyncLocalStorage<() => Promise<void>>();

/** Runs `fn`; ./http.ts awaits `hook` before each request sent inside it. @returns what `fn` returns. */
export function beforeNetworkCalls<T>(hook: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
  return hooks.run(hook, fn);
}

/** Awaits the hook of the current `beforeNetworkCalls`, if any (./http.ts, before each request). */
export async function runBeforeNetworkCall(): Promise<void> {
  const hook = hooks.getStore();
  if (hook) await hook();
}
