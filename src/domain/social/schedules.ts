/**
 * Schedules (service spec 2.7, 3.1 rule 2): an existing post, an explicit future timestamp and owned
 * destinations; approval creates the schedule and one pending delivery per account. Due schedules are
 * published by `publishDueSchedules` (called by the scheduler). No tool cancels or reschedules (spec 1.9):
 * the owner cancels in the browser (`cancelSchedule`, the posts page), which also releases the post's
 * approved content for changes (./content.ts).
 */
import { isUuid } from "../../ids.ts";
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import { type DeliveryView, deliveriesQuery, deliveryView, needsCarouselApproval } from "./deliveries.ts";
import { advanceDeliveries, CANCELED_REASON, refreshPostStatus } from "./engine.ts";
import {
  boundContent,
  type PreparedPublication,
  preparePublication,
  type PublicationRequest,
  reviewUrl,
} from "./publish.ts";
import { type ApprovedContent, deliveryBinding, recordCarouselApproval } from "./content.ts";
import { firstCommentColumns } from "./first-comment.ts";
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
 * Creates the schedule and its pending deliveries (the approved effect). Re-validates at execution time and
 * checks that the post is still what was approved (`approved`, the approval request's content); each
 * delivery carries the approval's binding (fingerprint, Pinterest link and board), which the delivery engine
 * checks again when the schedule is due.
 * @returns the schedule view.
 * @throws ToolError not_found / validation_failed (changed after approval, a destination already has the
 *   post, time passed) / account_setup_required.
 */
export async function schedulePost(
  app: AppContext,
  owner: Owner,
  req: ScheduleRequest,
  operationId: string | undefined,
  approved?: ApprovedContent,
): Promise<ScheduleView> {
  const scheduleId = await app.db.transaction((trx) =>
    createSchedule(app, trx, owner, req, operationId, approved),
  );
  return getSchedule(app.db, owner, scheduleId);
}

/**
 * Creates the schedules of schedule_posts' items (the approved effect of one approval): all in one
 * transaction, so either every item is scheduled or none is. Each item is checked as `schedulePost` checks
 * it, against its own approved content (`approved[i]`).
 * @returns the schedules, in the items' order.
 * @throws ToolError as `schedulePost`, its message starting with the item (`item 2 (/items/1): ...`).
 */
export async function schedulePosts(
  app: AppContext,
  owner: Owner,
  items: readonly ScheduleRequest[],
  operationId: string | undefined,
  approved: ReadonlyArray<ApprovedContent | undefined>,
): Promise<ScheduleView[]> {
  const ids = await app.db.transaction(async (trx) => {
    const out: string[] = [];
    for (const [i, req] of items.entries())
      out.push(await forItem(i, () => createSchedule(app, trx, owner, req, operationId, approved[i])));
    return out;
  });
  const views: ScheduleView[] = [];
  for (const id of ids) views.push(await getSchedule(app.db, owner, id));
  return views;
}

/** Runs `fn` for item `i` of a list argument; a ToolError it throws names the item first. */
export async function forItem<T>(i: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    throw new ToolError(
      err.code,
      `item ${i + 1} (/items/${i}): ${err.message}`,
      err.details,
      err.retryAfter,
      err.recovery,
    );
  }
}

/** The schedule and its deliveries for `req`, in `trx` (see schedulePost). @returns the schedule id. */
async function createSchedule(
  app: AppContext,
  trx: Knex.Transaction,
  owner: Owner,
  req: ScheduleRequest,
  operationId: string | undefined,
  approved: ApprovedContent | undefined,
): Promise<string> {
  const now = app.clock.now();
  const prepared = await prepareSchedule(trx, owner, req, now, {
    reviewUrl: reviewUrl(app.config.publicBaseUrl),
  });
  const content = await boundContent(trx, prepared, approved);
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
      ...deliveryBinding(content, a.social_account_id),
      ...firstCommentColumns(content.first_comment, a.network),
      created_at: now,
      updated_at: now,
    })),
  );
  await recordCarouselApproval(trx, prepared.post, content, needsCarouselApproval(prepared.post));
  await refreshPostStatus(trx, prepared.post.id, now);
  return schedule.id as string;
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

export interface CanceledSchedule {
  schedule_id: string;
  post_id: string;
  status: ScheduleStatus;
  /** Deliveries canceled (those that had not started). */
  canceled_deliveries: number;
}

export { CANCELED_REASON };

/**
 * Cancels the owner's schedule `scheduleId` (browser only, with session and CSRF; service spec 1.9: no tool
 * can): a `scheduled` schedule becomes `canceled` and its deliveries `failed` with CANCELED_REASON; a schedule
 * already `publishing` has only its deliveries that have not started canceled (pending, nothing saved from
 * the network, no step running), and becomes `canceled` when none had started. The post's status follows
 * its deliveries, and with no delivery left pending its content may change again. Each delivery is taken in
 * one conditional UPDATE, so the delivery engine and a cancel never both take it.
 * @returns the schedule's status afterwards and how many deliveries were canceled.
 * @throws ToolError not_found (not the owner's); validation_failed (already published, failed or canceled,
 *   or every delivery had started).
 */
export async function cancelSchedule(
  app: AppContext,
  owner: Owner,
  scheduleId: string,
): Promise<CanceledSchedule> {
  if (!isUuid(scheduleId)) throw notFound("schedule");
  return app.db.transaction(async (trx) => {
    const now = app.clock.now();
    const s = await trx("schedules").where(ownedBy(owner)).where({ id: scheduleId }).forUpdate().first();
    if (!s) throw notFound("schedule");
    if (s.status !== "scheduled" && s.status !== "publishing") {
      throw new ToolError(
        "validation_failed",
        `the schedule is ${s.status}; only a pending schedule can be canceled`,
      );
    }
    const canceled = await trx("deliveries")
      .where({ schedule_id: s.id, status: "pending" })
      .whereNull("step_started_at")
      .whereRaw("network_ids = '{}'::jsonb")
      .where((q) => q.whereNull("locked_until").orWhere("locked_until", "<", now))
      .update({ status: "failed", error: CANCELED_REASON, next_attempt_at: null, updated_at: now });
    // Deliveries published or still on their way: the schedule goes on for them.
    const goingOn = await trx("deliveries")
      .where({ schedule_id: s.id })
      .whereNot({ status: "failed" })
      .count({ n: "*" })
      .first();
    const started = Number(goingOn?.n ?? 0) > 0;
    if (canceled === 0 && started) {
      throw new ToolError(
        "validation_failed",
        "every delivery of this schedule has already started publishing; it can no longer be canceled",
      );
    }
    const status: ScheduleStatus = started ? s.status : "canceled";
    await trx("schedules")
      .where({ id: s.id })
      .update({ status, status_reason: started ? null : CANCELED_REASON, updated_at: now });
    await refreshPostStatus(trx, s.post_id, now);
    return { schedule_id: s.id, post_id: s.post_id, status, canceled_deliveries: canceled };
  });
}
