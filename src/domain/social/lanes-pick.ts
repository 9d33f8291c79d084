/**
 * Which due deliveries the delivery lanes of one worker start next (src/operations/deliveries.ts;
 * docs/operations.md "The delivery loop"): per network, up to the lane's free places, each on a different
 * account, none of an account whose step runs here or on another worker. Deliveries already under way
 * (uploading, processing, or to be reconciled) come before new ones, so a post that was started is finished
 * before the next is begun (a network's upload session or container does not wait behind a queue of new
 * posts); then the oldest due first, per account and then per network (ties in this process's own order).
 */
import { randomInt } from "node:crypto";
import type { AppContext } from "../../context.ts";
import type { DeliveryState } from "../../providers/social/network.ts";
import type { Network } from "../../providers/social/types.ts";
import { ACTIVE_STATES, scheduleStarted } from "./engine.ts";

/**
 * Orders this process's picks among deliveries due at the same time (posts scheduled for the same minute):
 * each worker takes the accounts in its own order, so two workers do not pick the same accounts' deliveries
 * and find them claimed by the other (a claim that finds nothing is a round trip and a lane place lost).
 */
const TIE_SEED = randomInt(0, 2 ** 31);

/** A due delivery picked for a lane. */
export interface LaneDelivery {
  id: string;
  network: Network;
  socialAccountId: string;
}

/**
 * Due deliveries (active, due, not leased, their schedule started, their owner active) for the lanes:
 * at most `free.get(network)` per network, at most one per account, none of the accounts in `busyAccounts`
 * (stepped by this worker) nor of an account whose lease another step holds (./lanes-state.ts).
 * @param free places per network; networks absent or at 0 get nothing.
 * @returns the deliveries, in no particular order across networks.
 */
export async function pickLaneDeliveries(
  app: AppContext,
  free: ReadonlyMap<Network, number>,
  busyAccounts: readonly string[],
): Promise<LaneDelivery[]> {
  const networks = [...free].filter(([, n]) => n > 0).map(([network]) => network);
  if (networks.length === 0) return [];
  const most = Math.max(...networks.map((n) => free.get(n) ?? 0));
  const now = app.clock.now();
  const perAccount = scheduleStarted(app.db("deliveries"))
    .join("social_accounts", "social_accounts.id", "deliveries.social_account_id")
    .whereIn("deliveries.status", ACTIVE_STATES as DeliveryState[])
    .whereIn("social_accounts.network", networks)
    .where((q) => q.whereNull("deliveries.next_attempt_at").orWhere("deliveries.next_attempt_at", "<=", now))
    .where((q) => q.whereNull("deliveries.locked_until").orWhere("deliveries.locked_until", "<", now))
    .whereNotIn("deliveries.social_account_id", busyAccounts)
    .whereNotExists((e) =>
      e
        .select(1)
        .from("delivery_account_leases as l")
        .whereRaw("l.social_account_id = deliveries.social_account_id")
        .where("l.locked_until", ">=", now),
    )
    .select(
      "deliveries.id",
      "social_accounts.network",
      "deliveries.social_account_id",
      "deliveries.next_attempt_at",
      app.db.raw(
        "row_number() over (partition by deliveries.social_account_id order by (deliveries.status = 'pending'), deliveries.next_attempt_at asc nulls first, deliveries.id) as account_turn",
      ),
      app.db.raw("(deliveries.status = 'pending') as fresh"),
    )
    .as("per_account");
  const perNetwork = app.db
    .from(perAccount)
    .where("account_turn", 1)
    .select(
      "id",
      "network",
      "social_account_id",
      app.db.raw(
        "row_number() over (partition by network order by fresh, next_attempt_at asc nulls first, hashtextextended(id::text, ?)) as network_turn",
        [TIE_SEED],
      ),
    )
    .as("per_network");
  const rows: Array<{ id: string; network: Network; social_account_id: string; network_turn: string }> =
    await app.db.from(perNetwork).where("network_turn", "<=", most).select("*");
  return rows
    .filter((r) => Number(r.network_turn) <= (free.get(r.network) ?? 0))
    .map((r) => ({ id: r.id, network: r.network, socialAccountId: r.social_account_id }));
}
