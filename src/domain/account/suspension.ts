/**
 * Suspended or removed users and workspaces (service spec 2.1 "account status", 5.8): their scheduled
 * posts are not published, the delivery engine does not step their deliveries (`ownerActiveSql`: held,
 * not failed, until the operator makes them active again) and their enabled automations do not run. `holdInactiveWork` finds that work and
 * marks it with a clear reason, so the owner and the operator can see why it stopped:
 * - a `scheduled` post schedule -> `canceled`, `status_reason` set, its pending deliveries -> `failed` with
 *   the same reason (nothing is sent to a network);
 * - an `enabled` automation -> `disabled`, `status_reason` set (re-enabling needs a new approval).
 * It runs at the start of every due-schedule and automation pass (src/domain/social/schedules.ts,
 * src/domain/automations/schedule.ts), which also skip inactive accounts in their own queries, and when
 * the operator changes a status (`admin user set-status`, `admin workspace set-status`).
 */
import type { Knex } from "../../db/knex.ts";
import { AccountError } from "./accounts.ts";

/** Statuses of users and workspaces; only `active` ones run work (users may also be `disabled`). */
export const ACCOUNT_STATUSES = ["active", "suspended", "removed"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** Why held work stopped; one sentence each, safe to show. */
export const HOLD_REASONS = {
  user: "the user's account is suspended or removed",
  workspace: "the workspace is suspended or removed",
  membership: "the user is no longer a member of the workspace",
} as const;

export interface HeldWork {
  schedules: number;
  automations: number;
}

/**
 * SQL condition (on a table aliased `t` with `user_id` and `workspace_id`) that is the hold reason, or null
 * when the owner and workspace are active and the user is still a member.
 */
const REASON_SQL = `case
  when (select u.status from users u where u.id = t.user_id) is distinct from 'active' then ?::text
  when (select w.status from workspaces w where w.id = t.workspace_id) is distinct from 'active' then ?::text
  when not exists (select 1 from memberships m where m.user_id = t.user_id and m.workspace_id = t.workspace_id)
    then ?::text
end`;
/** The bindings of REASON_SQL, in order. */
const REASONS = [HOLD_REASONS.user, HOLD_REASONS.workspace, HOLD_REASONS.membership];

/**
 * Why `owner`'s work must not run (one of HOLD_REASONS: the user or the workspace is not active, or the
 * user is no longer a member), or undefined when it may.
 */
export async function inactiveReason(
  db: Knex,
  owner: { userId: string; workspaceId: string },
): Promise<string | undefined> {
  const { rows } = await db.raw(
    `select ${REASON_SQL} as reason from (select ?::uuid as user_id, ?::uuid as workspace_id) t`,
    [...REASONS, owner.userId, owner.workspaceId],
  );
  return (rows[0]?.reason as string | null) ?? undefined;
}

/**
 * SQL condition: the owner of the row aliased `table` (with `user_id` and `workspace_id`) is active, still
 * a member and the workspace is active (the rows whose work may run; the delivery engine claims only these,
 * src/domain/social/engine.ts).
 */
export function ownerActiveSql(table: string): string {
  return `exists (select 1 from users u
    join memberships m on m.user_id = u.id
    join workspaces w on w.id = m.workspace_id
   where u.id = ${table}.user_id and w.id = ${table}.workspace_id
     and u.status = 'active' and w.status = 'active')`;
}

/**
 * Marks every scheduled post and enabled automation of an inactive user, an inactive workspace or a
 * former member (see the module comment). Idempotent; safe to run concurrently (conditional updates).
 * @returns how many schedules and automations this call stopped.
 */
export async function holdInactiveWork(db: Knex, now: Date): Promise<HeldWork> {
  return db.transaction(async (trx) => {
    const schedules: Array<{ id: string; status_reason: string }> = (
      await trx.raw(
        `update schedules s set status = 'canceled', status_reason = h.reason, updated_at = ?
         from (select t.id, ${REASON_SQL} as reason from schedules t where t.status = 'scheduled') h
         where s.id = h.id and h.reason is not null and s.status = 'scheduled'
         returning s.id, s.status_reason`,
        [now, ...REASONS],
      )
    ).rows;
    for (const s of schedules) {
      await trx("deliveries")
        .where({ schedule_id: s.id, status: "pending" })
        .update({ status: "failed", error: s.status_reason, updated_at: now });
    }
    const automations = (
      await trx.raw(
        `update automations a set status = 'disabled', status_reason = h.reason, updated_at = ?
         from (select t.id, ${REASON_SQL} as reason from automations t
               where t.status = 'enabled' and t.deleted_at is null) h
         where a.id = h.id and h.reason is not null and a.status = 'enabled'
         returning a.id`,
        [now, ...REASONS],
      )
    ).rows;
    return { schedules: schedules.length, automations: automations.length };
  });
}

/**
 * Sets a user's status (operator command) and holds their work when it is no longer active.
 * @throws AccountError for an unknown email or status.
 */
export async function setUserStatus(
  db: Knex,
  email: string,
  status: string,
  now: Date,
): Promise<{ user_id: string; status: AccountStatus; held: HeldWork }> {
  if (!(ACCOUNT_STATUSES as readonly string[]).includes(status))
    throw new AccountError(`status must be one of ${ACCOUNT_STATUSES.join(", ")}`);
  const [row] = await db("users")
    .whereRaw("lower(email) = lower(?)", [email])
    .update({ status })
    .returning("id");
  if (!row) throw new AccountError(`no user with email ${email}`);
  return { user_id: row.id, status: status as AccountStatus, held: await holdInactiveWork(db, now) };
}

/**
 * Sets a workspace's status (operator command) and holds its work when it is no longer active.
 * @throws AccountError for an unknown workspace or status.
 */
export async function setWorkspaceStatus(
  db: Knex,
  workspaceId: string,
  status: string,
  now: Date,
): Promise<{ workspace_id: string; status: AccountStatus; held: HeldWork }> {
  if (!(ACCOUNT_STATUSES as readonly string[]).includes(status))
    throw new AccountError(`status must be one of ${ACCOUNT_STATUSES.join(", ")}`);
  const n = await db("workspaces").where({ id: workspaceId }).update({ status });
  if (n === 0) throw new AccountError(`no workspace ${workspaceId}`);
  return {
    workspace_id: workspaceId,
    status: status as AccountStatus,
    held: await holdInactiveWork(db, now),
  };
}
