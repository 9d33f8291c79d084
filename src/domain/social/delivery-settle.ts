/**
 * What follows a finished delivery (service spec 2.7): its post's status, derived from all of the post's
 * deliveries, and its schedule's status.
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { runPrepared, statement } from "../../db/prepared.ts";
import { ACTIVE_STATES, CANCELED_REASON } from "./delivery-states.ts";

const ACTIVE = ACTIVE_STATES.map((st) => `'${st}'`).join(", ");

/**
 * A schedule's status once each of its deliveries finished: `published` when any was published, else
 * `failed`; left as it is while one is still open. $1 the schedule, $2 now.
 */
const SETTLE_SCHEDULE = statement(
  "schedule-settle",
  `with st as (
     select bool_and(status in ('published', 'failed')) as done, bool_or(status = 'published') as any_published
       from deliveries where schedule_id = $1::uuid)
   update schedules set status = case when st.any_published then 'published' else 'failed' end,
          updated_at = $2::timestamptz
     from st
    where schedules.id = $1::uuid and schedules.status in ('scheduled', 'publishing') and st.done`,
);

/** After a delivery finished: the post's status and its schedule's status follow. */
export async function settleParents(app: AppContext, row: { post_id: string; schedule_id: string | null }) {
  const now = app.clock.now();
  await refreshPostStatus(app.db, row.post_id, now);
  if (row.schedule_id) await runPrepared(app.db, SETTLE_SCHEDULE, [row.schedule_id, now]);
}

/**
 * The post's status from its deliveries, in one statement (see `refreshPostStatus`). $1 the post, $2 now,
 * $3 CANCELED_REASON.
 */
const POST_STATUS = statement(
  "post-status-from-deliveries",
  `with r as (
     select d.status, d.scheduled_for, s.status as schedule_status
       from deliveries d left join schedules s on s.id = d.schedule_id
      where d.post_id = $1::uuid and not (d.status = 'failed' and d.error is not distinct from $3::text)),
   agg as (
     select (select count(*) from deliveries where post_id = $1::uuid) as n_all,
            count(*) as n,
            count(*) filter (where status = 'published') as published,
            count(*) filter (where status in (${ACTIVE})) as active,
            count(*) filter (where status = 'needs_review') as review,
            count(*) filter (where status = 'pending' and scheduled_for is not null
                               and schedule_status is distinct from 'publishing') as waiting
       from r)
   update posts set status = case
       when agg.n = 0 then case when posts.type = 'carousel' then 'approved' else 'draft' end
       when agg.published = agg.n then 'published'
       when agg.active - agg.waiting + agg.review > 0 then 'publishing'
       when agg.waiting > 0 then 'scheduled'
       when agg.published > 0 then 'published'
       else 'failed' end,
     updated_at = $2::timestamptz
     from agg
    where posts.id = $1::uuid and agg.n_all > 0`,
);

/**
 * Derives a post's status from its deliveries (a post may go to several networks at different times):
 * every delivery published -> `published`; any in flight (started, due, or a TikTok post waiting in
 * `needs_review`) -> `publishing`; else any waiting for its schedule -> `scheduled`; else any published ->
 * `published` (the failed ones aside); else `failed`. Deliveries of canceled schedules are left out; with
 * only those, the post goes back to `approved` (a carousel) or `draft`. A post without deliveries is left as
 * it is. One statement (`POST_STATUS`), on `db` (a transaction's work included).
 */
export async function refreshPostStatus(db: Knex, postId: string, now: Date): Promise<void> {
  await runPrepared(db, POST_STATUS, [postId, now, CANCELED_REASON]);
}
