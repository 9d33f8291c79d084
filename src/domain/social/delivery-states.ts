/**
 * The delivery states the engine works through and the rules shared by its modules (service spec 2.7, 3.1;
 * docs/social.md): which states still have work, how many transient failures a delivery takes, the backoff
 * between attempts, and which deliveries may run at all.
 */
import type { Knex } from "../../db/knex.ts";
import type { DeliveryState } from "../../providers/social/network.ts";
import { ownerActiveSql } from "../account/suspension.ts";

/** States in which a delivery still has work to do. */
export const ACTIVE_STATES: readonly DeliveryState[] = [
  "pending",
  "uploading",
  "processing",
  "outcome_unknown",
];
/** Transient failures (or unanswered reconciles) before a delivery is failed. */
export const MAX_ATTEMPTS = 8;

/**
 * Restricts a deliveries query to those that may run: a delivery of a schedule only once the schedule was
 * started (`publishDueSchedules` claimed it), never while it is `scheduled` or `canceled`; and only while
 * its user and workspace are active and the user a member (`ownerActiveSql`): the deliveries of a
 * suspended user or workspace, with a schedule or without, are held where they are.
 */
export function scheduleStarted(q: Knex.QueryBuilder): Knex.QueryBuilder {
  return q
    .whereRaw(ownerActiveSql("deliveries"))
    .where((w) =>
      w
        .whereNull("deliveries.schedule_id")
        .orWhereExists((e) =>
          e
            .select(1)
            .from("schedules as s")
            .whereRaw("s.id = deliveries.schedule_id")
            .whereNotIn("s.status", ["scheduled", "canceled"]),
        ),
    );
}

/** The reason written on the deliveries of a schedule the owner canceled (./schedules.ts `cancelSchedule`). */
export const CANCELED_REASON = "canceled by the owner before it was published";

/** Backoff after the `n`-th transient failure, seconds: 5, 10, 20, ... at most 900. */
export function backoffSeconds(n: number): number {
  return Math.min(900, 5 * 2 ** Math.max(0, n - 1));
}
