/**
 * Schedules (service spec 2.7, 3.1 rule 2): an existing post, an explicit future timestamp and owned
 * destinations; approval creates the schedule and one pending delivery per account. Due schedules are
 * published by `publishDueSchedules` (called by the scheduler). No tool cancels or reschedules (spec 1.9): the
 * owner cancels a pending schedule in the browser (`cancelSchedule`, the posts page).
 */
import { isUuid } from "../../ids.ts";
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import { type DeliveryView, deliveriesQuery, deliveryView } from "./deliveries.ts";
import { advanceDeliveries, refreshPostStatus } from "./engine.ts";
import {
  type PreparedPublication,
  preparePublication,
  type PublicationRequest,
  reviewUrl,
} from "./publish.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { holdInactiveWork } from "../account/suspension.ts";

export interface ScheduleRequest extends PublicationRequest {
  /** RFC 3339 date-time with offset. */
  scheduled_for: string;
}

/** Schedule statuses (service spec 2.7). */
export type ScheduleStatus = "scheduled" | "publishing" | "published" | "failed" | "canceled";

export interface ScheduleView {
  schedule_id: string;
  post_id: string;
  scheduled_for: string;
  status: ScheduleStatus;
  deliveries: DeliveryView[];
}

/**
 * Validates a schedule request: everything `preparePublication` checks, plus a timestamp in the future.
 * @throws ToolError validation_failed for a past or unparsable time; not_found for foreign records.
 */
export async function prepareSchedule(
  db: Knex,
  owner: Owner,
  req: ScheduleRequest,
  now: Date,
  options: { reviewUrl?: string | undefined } = {},
): Promise<PreparedPublication & { at: Date }> {
  const at = new Date(req.scheduled_for);
  if (!/[zZ]|[+-]\d{2}:?\d{2}$/.test(req.scheduled_for) || Number.isNaN(at.getTime())) {
    throw ToolError.validation("scheduled_for must be an RFC 3339 date-time with a time zone offset", {
      path: "/scheduled_for",
      keyword: "format",
      schemaPath: "#/properties/scheduled_for/format",
      params: { format: "date-time" },
      rule: "must be a date-time",
    });
  }
  if (at.getTime() <= now.getTime()) {
    throw ToolError.validation("scheduled_for must be in the future", {
      path: "/scheduled_for",
      keyword: "minimum",
      params: { now: now.toISOString() },
      rule: "must be a future time",
    });
  }
  const prepared = await preparePublication(db, owner, req, options);
  return { ...prepared, at };
}

/**
 * Creates the schedule and its pending deliveries (the approved effect). Re-validates at execution time.
 * @returns the schedule view.
 */
export async function schedulePost(
  app: AppContext,
  owner: Owner,
  req: ScheduleRequest,
  operationId: string | undefined,
): Promise<ScheduleView> {
  const scheduleId = await app.db.transaction(async (trx) => {
    const now = app.clock.now();
    const prepared = await prepareSchedule(trx, owner, req, now, {
      reviewUrl: reviewUrl(app.config.publicBaseUrl),
    });
    const [schedule] = await trx("schedules")
      .insert({
        workspace_id: owner.workspaceId,
        user_id: owner.userId,
        post_id: prepared.post.id,
        scheduled_for: prepared.at,
        status: "scheduled",
        operation_id: operationId ?? null,
        created_at: now,
        updated_at: now,
      })
      .returning("id");
    await trx("deliveries").insert(
      prepared.accounts.map((a) => ({
        workspace_id: owner.workspaceId,
        user_id: owner.userId,
        post_id: prepared.post.id,
        social_account_id: a.social_account_id,
        schedule_id: schedule.id,
        status: "pending",
        scheduled_for: prepared.at,
        operation_id: operationId ?? null,
        created_at: now,
        updated_at: now,
      })),
    );
    await refreshPostStatus(trx, prepared.post.id, now);
    return schedule.id as string;
  });
  return getSchedule(app.db, owner, scheduleId);
}

/** Reads one of the owner's schedules with its deliveries. @throws ToolError not_found. */
export async function getSchedule(db: Knex, owner: Owner, scheduleId: string): Promise<ScheduleView> {
  if (!isUuid(scheduleId)) throw notFound("schedule");
  const s = await db("schedules").where(ownedBy(owner)).where({ id: scheduleId }).first();
  if (!s) throw notFound("schedule");
  const rows = await deliveriesQuery(db, owner)
    .where("d.schedule_id", s.id)
    .orderBy([{ column: "a.network" }, { column: "d.id" }]);
  return {
    schedule_id: s.id,
    post_id: s.post_id,
    scheduled_for: new Date(s.scheduled_for).toISOString(),
    status: s.status,
    deliveries: rows.map(deliveryView),
  };
}

/**
 * Starts every schedule whose time has come (status `scheduled` -> `publishing`, `scheduled_for <= now`),
 * claiming each atomically so concurrent schedulers cannot start it twice, and runs its deliveries through
 * the engine for a few seconds (the delivery pass carries on). Meant for the scheduler pass.
 * Schedules of a suspended or removed user or workspace are first canceled with their reason
 * (`holdInactiveWork`), never started.
 * @returns the number of schedules published.
 */
export async function publishDueSchedules(app: AppContext, limit = 100): Promise<number> {
  const now = app.clock.now();
  await holdInactiveWork(app.db, now);
  const claimed: Array<{ id: string }> = await app
    .db("schedules")
    .whereIn(
      "id",
      app
        .db("schedules")
        .select("id")
        .where({ status: "scheduled" })
        .where("scheduled_for", "<=", now)
        .limit(limit),
    )
    .where({ status: "scheduled" })
    .update({ status: "publishing", updated_at: now })
    .returning("id");
  for (const { id } of claimed) {
    const ids = (
      await app
        .db("deliveries")
        .where({ schedule_id: id })
        .whereIn("status", ["pending", "uploading", "processing", "outcome_unknown"])
        .select("id")
    ).map((r: { id: string }) => r.id);
    // The engine settles the schedule's status when its last delivery finishes (./engine.ts).
    await advanceDeliveries(app, ids, { budgetSeconds: 5 });
  }
  return claimed.length;
}

/** Why a schedule the owner canceled did not publish (the schedule's `status_reason`, each delivery's reason). */
export const CANCELED_BY_OWNER =
  "canceled by you on the posts page before it was published; nothing was sent to the network";

/**
 * Cancels one of the owner's pending schedules: the browser path of the posts page (session + CSRF); no tool
 * can (service spec 1.9). The schedule goes `scheduled` -> `canceled` with its reason, and each of its
 * deliveries that has not started (`pending`, no step begun) -> `failed` with the same reason, in one
 * transaction; nothing reaches a network. The conditional update makes it safe against the scheduler
 * starting the schedule at the same moment: exactly one of them wins. The post's status follows its other
 * deliveries; a post with none left goes back to `approved` (a carousel) or `draft`.
 * @returns the schedule id and how many deliveries were canceled.
 * @throws ToolError not_found for a schedule that is not the owner's; validation_failed when the schedule is
 *   no longer pending (publishing, published, failed or already canceled).
 */
export async function cancelSchedule(
  db: Knex,
  owner: Owner,
  scheduleId: string,
  now: Date,
): Promise<{ schedule_id: string; canceled_deliveries: number }> {
  if (!isUuid(scheduleId)) throw notFound("schedule");
  return db.transaction(async (trx) => {
    const [schedule] = await trx("schedules")
      .where(ownedBy(owner))
      .where({ id: scheduleId, status: "scheduled" })
      .update({ status: "canceled", status_reason: CANCELED_BY_OWNER, updated_at: now })
      .returning(["id", "post_id"]);
    if (!schedule) {
      const row = await trx("schedules").where(ownedBy(owner)).where({ id: scheduleId }).first("status");
      if (!row) throw notFound("schedule");
      throw new ToolError(
        "validation_failed",
        `the schedule is ${row.status}, not pending; only a schedule that has not started can be canceled`,
      );
    }
    const canceled = await trx("deliveries")
      .where({ schedule_id: schedule.id, status: "pending" })
      .whereNull("step_started_at")
      .update({ status: "failed", error: CANCELED_BY_OWNER, next_attempt_at: null, updated_at: now });
    const left = await trx("deliveries as d")
      .leftJoin("schedules as s", "s.id", "d.schedule_id")
      .where("d.post_id", schedule.post_id)
      .where((q) => q.whereNull("s.status").orWhereNot("s.status", "canceled"))
      .first(trx.raw("count(*)::int as n"));
    if (Number(left?.n ?? 0) > 0) await refreshPostStatus(trx, schedule.post_id, now);
    else
      await trx("posts")
        .where({ id: schedule.post_id })
        .update({
          status: trx.raw("case when type = 'carousel' then 'approved' else 'draft' end"),
          updated_at: now,
        });
    return { schedule_id: schedule.id as string, canceled_deliveries: canceled };
  });
}
