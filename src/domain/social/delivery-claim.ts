/**
 * Claiming a delivery's step (service spec 3.1): the account lease (one step of an account at a time on any
 * worker), the delivery's lease (`locked_until`: one worker per delivery), the step, what follows a finished
 * delivery, and the first comment once its post is live.
 *
 * The claim is one prepared statement (`CLAIM`, src/db/prepared.ts): it takes the account lease
 * (`delivery_account_leases`, ./lanes-state.ts) in one `INSERT ... ON CONFLICT DO UPDATE ... WHERE
 * locked_until < now` (atomic across workers: a concurrent taker waits for the row and re-checks it) for
 * `DELIVERY_LEASE_SECONDS` (a worker that died leaves a lease that runs out), then the delivery's lease under it with the claim's conditions checked again on the row it updates (a
 * concurrent claim or a delete_post's stop that committed first leaves nothing to claim), marks the step
 * started (`step_started_at`, unless its post was deleted and nothing is to be reconciled: see
 * ./delivery-step.ts), and returns the delivery with the account row and the post it needs, so the step
 * reads nothing more before it calls the network (except a carousel's slides). The account lease goes back
 * with the step's last update (./delivery-step.ts `update`), or after the first comment when one waits.
 */
import { randomUUID } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { runPrepared, statement } from "../../db/prepared.ts";
import type { DeliveryState } from "../../providers/social/network.ts";
import { ownerActiveSql } from "../account/suspension.ts";
import { OPENED_ACCOUNT_COLUMNS } from "./accounts.ts";
import { observeDeliveryStep } from "./step-telemetry.ts";
import { postFirstComment } from "./first-comment.ts";
import { ACTIVE_STATES } from "./delivery-states.ts";
import { settleParents } from "./delivery-settle.ts";
import { type ClaimedDelivery, stepClaimed } from "./delivery-step.ts";

const ACTIVE = ACTIVE_STATES.map((s) => `'${s}'`).join(", ");
/** The claim's conditions on `deliveries` (./delivery-states.ts `scheduleStarted` for the last two). */
const CLAIMABLE = `deliveries.status in (${ACTIVE})
     and (deliveries.next_attempt_at is null or deliveries.next_attempt_at <= $3::timestamptz)
     and (deliveries.locked_until is null or deliveries.locked_until < $3::timestamptz)`;

/**
 * $1 delivery id, $2 the lease holder (a fresh UUID), $3 now, $4 the leases' end. One row always: `leased`
 * (the account whose lease was taken, else null), and the delivery's columns (null when it was not claimed),
 * `account.*` its account's, `post.*` its post's with `post.media_rows` the post's media assets (JSON).
 */
const CLAIM = statement(
  "delivery-claim",
  `with d as (
     select deliveries.id, deliveries.social_account_id, deliveries.status, deliveries.step_started_at,
            exists (select 1 from posts p where p.id = deliveries.post_id and p.deleted_at is not null)
              as post_deleted
       from deliveries
      where deliveries.id = $1::uuid and ${CLAIMABLE}
        and ${ownerActiveSql("deliveries")}
        and (deliveries.schedule_id is null or exists (select 1 from schedules s
              where s.id = deliveries.schedule_id and s.status not in ('scheduled', 'canceled')))
   ), lease as (
     insert into delivery_account_leases (social_account_id, holder, locked_until)
     select social_account_id, $2::uuid, $4::timestamptz from d
     on conflict (social_account_id) do update
       set holder = excluded.holder, locked_until = excluded.locked_until
       where delivery_account_leases.locked_until < $3::timestamptz
     returning social_account_id
   ), claimed as (
     update deliveries
        set locked_until = $4::timestamptz,
            step_started_at = case
              when d.status = 'outcome_unknown' or d.step_started_at is not null or not d.post_deleted
                then $3::timestamptz
              else deliveries.step_started_at end,
            updated_at = $3::timestamptz
       from d join lease on lease.social_account_id = d.social_account_id
      where deliveries.id = d.id and ${CLAIMABLE}
      returning deliveries.id, deliveries.post_id, deliveries.social_account_id, deliveries.schedule_id,
        deliveries.status, deliveries.network_ids, deliveries.options, deliveries.attempt,
        d.step_started_at, d.post_deleted, deliveries.content_fingerprint, deliveries.approved_link,
        deliveries.approved_board_id, deliveries.approved_format, deliveries.first_comment_status
   )
   select (select social_account_id from lease) as leased, c.*,
          ${OPENED_ACCOUNT_COLUMNS.map((col) => `a.${col} as "account.${col}"`).join(", ")},
          p.type as "post.type", p.title as "post.title", p.caption as "post.caption",
          p.media_asset_ids as "post.media_asset_ids", p.alt_texts as "post.alt_texts",
          p.product_id as "post.product_id",
          (select json_agg(json_build_object('id', m.id, 'storage_key', m.storage_key, 'kind', m.kind,
                    'mime_type', m.mime_type, 'bytes', m.bytes, 'width', m.width, 'height', m.height,
                    'duration_seconds', m.duration_seconds, 'frame_rate', m.frame_rate,
                    'video_codec', m.video_codec, 'audio_codec', m.audio_codec, 'alt_text', m.alt_text))
             from media_assets m
            where jsonb_typeof(p.media_asset_ids) = 'array'
              and m.id in (select e::uuid from jsonb_array_elements_text(p.media_asset_ids) e
                            where e ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
              and m.deleted_at is null) as "post.media_rows"
     from (select 1) one
     left join claimed c on true
     left join social_accounts a on a.id = c.social_account_id
     left join posts p on p.id = c.post_id`,
);

/** Gives back the account lease `holder` took (only its holder's). */
const RELEASE = statement(
  "delivery-account-lease-release",
  "delete from delivery_account_leases where social_account_id = $1::uuid and holder = $2::uuid",
);

/** The columns prefixed `prefix.` of `row`, without the prefix. */
function part(row: Record<string, unknown>, prefix: string): Record<string, any> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
  return out;
}

/**
 * Claims and runs one step of delivery `id` when it is due, unleased and active, while no other step of the
 * same account runs on any worker (the account lease, ./lanes-state.ts).
 * @param outcome when given, `dueAgain` is set to whether the delivery's next step is due at once (the
 *   adapter asked for no wait: an upload right after its session was opened), so a caller may step it again
 *   without waiting for a look-up.
 * @returns the state after the step, or undefined when the delivery was not claimed (not due, leased by
 *   another worker, finished, or another step of its account under way).
 */
export async function runDeliveryStep(
  app: AppContext,
  id: string,
  signal?: AbortSignal,
  outcome?: { dueAgain?: boolean },
): Promise<DeliveryState | undefined> {
  if (outcome) outcome.dueAgain = false;
  const now = app.clock.now();
  const until = new Date(now.getTime() + app.config.social.deliveryLeaseSeconds * 1000);
  const holder = randomUUID();
  const [found] = await runPrepared<Record<string, any>>(app.db, CLAIM, [id, holder, now, until]);
  if (!found?.leased) return undefined;
  if (!found.id) {
    // The account lease was taken but the delivery was claimed meanwhile (or changed): give it back.
    await runPrepared(app.db, RELEASE, [found.leased, holder]);
    return undefined;
  }
  const row: ClaimedDelivery = {
    id: found.id,
    post_id: found.post_id,
    social_account_id: found.social_account_id,
    schedule_id: found.schedule_id,
    status: found.status,
    network_ids: found.network_ids,
    options: found.options,
    attempt: found.attempt,
    step_started_at: found.step_started_at,
    content_fingerprint: found.content_fingerprint,
    approved_link: found.approved_link,
    approved_board_id: found.approved_board_id,
    approved_format: found.approved_format,
    postDeleted: found.post_deleted === true,
    account: found["account.id"] ? part(found, "account.") : undefined,
    post: found["post.type"] ? part(found, "post.") : undefined,
    // With a first comment waiting, the lease stays for it (below); else the step's last update gives it back.
    lease: { holder, releaseWithUpdate: found.first_comment_status !== "pending", released: false },
  };
  try {
    const state = await observeDeliveryStep(app, row, () => stepClaimed(app, row, signal));
    if (outcome) outcome.dueAgain = row.dueAgain === true;
    if (state === "published" || state === "failed") await settleParents(app, row);
    // The first comment goes under the post as soon as it is live (./first-comment.ts; later passes retry).
    if (state === "published" && found.first_comment_status === "pending")
      await postFirstComment(app, row.id, signal);
    return state;
  } finally {
    if (!row.lease.released) await runPrepared(app.db, RELEASE, [row.social_account_id, holder]);
  }
}
