/**
 * When an account's start budget frees a call (docs/operations.md "The delivery loop"): a network that
 * refuses a start for its per-account budget over a sliding window without saying when it is free again
 * (TikTok's init: 6 calls in any 60 seconds per user access token, `NetworkPublisher.startWindow`) is
 * free again once the oldest of the last `calls` starts leaves the window. The starts are the service's own
 * record of them (`deliveries.started_at`, set by ./delivery-step.ts as a delivery leaves `pending`).
 */
import type { AppContext } from "../../context.ts";
import type { StartWindow } from "../../providers/social/network.ts";

/**
 * Seconds from now until the window of `accountId`'s starts frees a call: the `window.calls`-th most recent
 * start within the last `window.seconds`, plus the window, rounded up to whole seconds (at least 1).
 * @returns undefined when fewer than `window.calls` starts are on record in the window (the budget was spent
 *   by calls the service did not make, or before its records): the caller then waits what the network said.
 */
export async function startWindowFrees(
  app: AppContext,
  accountId: string,
  window: StartWindow,
): Promise<number | undefined> {
  const now = app.clock.now().getTime();
  const starts: Date[] = await app
    .db("deliveries")
    .where({ social_account_id: accountId })
    .where("started_at", ">", new Date(now - window.seconds * 1000))
    .orderBy("started_at", "desc")
    .limit(window.calls)
    .pluck("started_at");
  if (starts.length < window.calls) return undefined;
  const oldest = new Date(starts[starts.length - 1]!).getTime();
  return Math.max(1, Math.ceil((oldest + window.seconds * 1000 - now) / 1000));
}
