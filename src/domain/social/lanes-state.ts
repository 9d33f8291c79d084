/**
 * The delivery lanes' state shared by every worker in PostgreSQL (docs/operations.md "The delivery loop";
 * the lanes themselves: src/operations/delivery-lanes.ts):
 * - the account lease (`delivery_account_leases`): a step of a delivery runs only while it holds its
 *   account's lease, so no two steps of one account run at once on any worker (taken by the step's claim,
 *   ./delivery-claim.ts, given back by its last update, ./delivery-step.ts);
 * - network stops (`delivery_network_stops`): a network that said the APP's budget is spent pauses every
 *   worker's lane of that network until the time it gave (`recordNetworkStop`, `networkStops`);
 * - account holds: a network that said an ACCOUNT's budget is spent (its token's limit) moves the due time
 *   of that account's waiting deliveries to when it is back (`holdAccount`), so no worker asks again early.
 * The budgets come from the networks' own answers (src/providers/social/usage.ts, NetworkRateLimitError).
 */
import type { AppContext } from "../../context.ts";
import type { Network } from "../../providers/social/types.ts";

/** A network's lane paused by the network's own answer: until when, and why (safe to show). */
export interface NetworkStop {
  until: Date;
  reason: string;
}

/**
 * Pauses every worker's lane of `network` until `stop.until` (a later stop replaces an earlier one, an
 * earlier one never shortens it).
 */
export async function recordNetworkStop(app: AppContext, network: Network, stop: NetworkStop): Promise<void> {
  await app.db.raw(
    `insert into delivery_network_stops (network, until, reason, updated_at) values (?, ?, ?, ?)
     on conflict (network) do update set until = excluded.until, reason = excluded.reason,
       updated_at = excluded.updated_at
     where delivery_network_stops.until < excluded.until`,
    [network, stop.until, stop.reason.slice(0, 300), app.clock.now()],
  );
}

/** The network stops in force now, by network. */
export async function networkStops(app: AppContext): Promise<Map<Network, NetworkStop>> {
  const rows: Array<{ network: Network; until: Date; reason: string }> = await app
    .db("delivery_network_stops")
    .where("until", ">", app.clock.now())
    .select("network", "until", "reason");
  return new Map(rows.map((r) => [r.network, { until: new Date(r.until), reason: r.reason }]));
}

/**
 * Holds the active deliveries of `accountId` that would be due before `until` (not leased by a running
 * step) until then: the network said the account's own budget is spent.
 * @param options.startsOnly the budget is the one of the call that starts a post (NetworkRateLimitError
 *   `startsOnly`): only the deliveries not started yet (`pending`) are held; uploads and status polls of
 *   posts under way go on.
 * @returns how many deliveries were held.
 */
export async function holdAccount(
  app: AppContext,
  accountId: string,
  until: Date,
  options: { startsOnly?: boolean } = {},
): Promise<number> {
  const now = app.clock.now();
  return app
    .db("deliveries")
    .where({ social_account_id: accountId })
    .whereIn(
      "status",
      options.startsOnly ? ["pending"] : ["pending", "uploading", "processing", "outcome_unknown"],
    )
    .where((q) => q.whereNull("next_attempt_at").orWhere("next_attempt_at", "<", until))
    .where((q) => q.whereNull("locked_until").orWhere("locked_until", "<", now))
    .update({ next_attempt_at: until, updated_at: now });
}
