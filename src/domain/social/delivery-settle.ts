/**
 * What follows a finished delivery (service spec 2.7): its post's status, derived from all of the post's
 * deliveries, and its schedule's status.
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { ACTIVE_STATES, CANCELED_REASON } from "./delivery-states.ts";

/** After a delivery finished: the post's status and its schedule's status follow. */
export async function settleParents(app: AppContext, row: { post_id: string; schedule_id: string | null }) {
  const now = app.clock.now();
  await refreshPostStatus(app.db, row.post_id, now);
  if (row.schedule_id) {
    const statuses: string[] = (
      await app.db("deliveries").where({ schedule_id: row.schedule_id }).select("status")
    ).map((r: { status: string }) => r.status);
    const status = statuses.every((s) => s === "published")
      ? "published"
      : statuses.every((s) => s === "published" || s === "failed")
        ? statuses.some((s) => s === "published")
          ? "published"
          : "failed"
        : undefined;
    if (status)
      await app
        .db("schedules")
        .where({ id: row.schedule_id })
        .whereIn("status", ["scheduled", "publishing"])
        .update({ status, updated_at: now });
  }
}

/**
 * Derives a post's status from its deliveries (a post may go to several networks at different times):
 * every delivery published -> `published`; any in flight (started, due, or a TikTok post waiting in
 * `needs_review`) -> `publishing`; else any waiting for its schedule -> `scheduled`; else any published ->
 * `published` (the failed ones aside); else `failed`. Deliveries of canceled schedules are left out; with
 * only those, the post goes back to `approved` (a carousel) or `draft`.
 */
export async function refreshPostStatus(db: Knex, postId: string, now: Date): Promise<void> {
  const all: Array<{
    status: string;
    error: string | null;
    scheduled_for: Date | null;
    schedule_status: string | null;
  }> = await db("deliveries as d")
    .leftJoin("schedules as s", "s.id", "d.schedule_id")
    .where({ "d.post_id": postId })
    .select("d.status", "d.error", "d.scheduled_for", "s.status as schedule_status");
  if (all.length === 0) return;
  // Deliveries of a schedule the owner canceled never happened: a post with nothing else is back where it
  // was before it was scheduled (a carousel stays approved).
  const rows = all.filter((r) => !(r.status === "failed" && r.error === CANCELED_REASON));
  if (rows.length === 0) {
    await db("posts")
      .where({ id: postId })
      .update({
        status: db.raw("case when type = 'carousel' then 'approved' else 'draft' end"),
        updated_at: now,
      });
    return;
  }
  const count = (st: string) => rows.filter((r) => r.status === st).length;
  // A pending delivery of a schedule not started yet (due or not) waits for it.
  const waiting = rows.filter(
    (r) => r.status === "pending" && r.scheduled_for && r.schedule_status !== "publishing",
  ).length;
  const active = rows.filter((r) => (ACTIVE_STATES as string[]).includes(r.status)).length;
  const inFlight = active - waiting + count("needs_review");
  let status: string;
  if (count("published") === rows.length) status = "published";
  else if (inFlight > 0) status = "publishing";
  else if (waiting > 0) status = "scheduled";
  else if (count("published") > 0) status = "published";
  else status = "failed";
  await db("posts").where({ id: postId }).update({ status, updated_at: now });
}
