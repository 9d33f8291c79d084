/**
 * The delivery engine (service spec 2.7, 3.1; docs/social.md): each delivery is a state machine
 * `pending -> uploading -> processing -> published | failed`, plus `outcome_unknown`, persisted at every
 * step. One step = one call of the network adapter's `step` (src/providers/social/network.ts), which saves
 * the network's ids (containers, publish_id, upload session) through `save` the moment they exist.
 *
 * Guarantees:
 * - A step runs under a lease (`locked_until`), so two workers never step the same delivery at once.
 * - `step_started_at` is set before the adapter is called and cleared after the result is saved. A worker
 *   that dies mid-step leaves it set: the next worker treats the delivery as `outcome_unknown` and asks the
 *   network (`reconcile`) before doing anything else. A create call is never retried blindly.
 * - `NetworkTransientError` after a create -> `outcome_unknown`; before a create -> retried with
 *   exponential backoff (5 s doubling, at most 15 min) up to `MAX_ATTEMPTS`, then `failed`.
 * - `NetworkRateLimitError` -> the same step again after `retryAfterSeconds` (Retry-After / usage headers),
 *   reported to the caller observing usage (src/providers/social/usage.ts `observeUsage`: the delivery lanes).
 * - No two steps of one account run at once, on any worker (the account lease, ./lanes-state.ts).
 * - `NetworkAuthError` -> the account becomes `needs_reconnect`, the delivery `failed` with the reason;
 *   other accounts are untouched. Transient errors never disconnect an account.
 * - The account's publishing limit (optional `publishingLimit`, Instagram `content_publishing_limit`) is
 *   checked before the first create; a used-up quota fails the delivery with the numbers.
 * - A delivery made by an approval carries its binding (./content.ts): before each step (every network
 *   create happens in a step) the post is compared with the approved fingerprint; a post that changed since
 *   fails the delivery with a plain reason and nothing reaches the network. The Pinterest link and board are
 *   the approved ones.
 * - A deleted post is never published: the step that can create something starts only while the post's
 *   `deleted_at` is null (`startStep`); otherwise the delivery fails with a reason saying so.
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import {
  type DeliveryJob,
  type DeliveryState,
  type JobMedia,
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
  type NetworkAdapter,
  type NetworkIds,
  type StepResult,
} from "../../providers/social/network.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import { ownerActiveSql } from "../account/suspension.ts";
import { sliceStream } from "../media/byte-range.ts";
import { signedMediaUrl } from "../media/public-url.ts";
import { markNeedsReconnect, type OpenedAccount, openAccount } from "./accounts.ts";
import { adapterAccount } from "./account-settings.ts";
import { refreshAccountTokens } from "./refresh.ts";
import { postMedia } from "./validate.ts";
import { CHANGED_AFTER_APPROVAL, deliveryStillApproved } from "./content.ts";
import { postDeletedReason } from "./deliveries.ts";
import { BOARD_SETTING } from "../../providers/social/pinterest/boards.ts";
import { observeDeliveryStep } from "./step-telemetry.ts";
import { withAccountLease } from "./lanes-state.ts";
import { reportUsage } from "../../providers/social/usage.ts";
import { postFirstComment, runDueFirstComments } from "./first-comment.ts";

/** States in which a delivery still has work to do. */
export const ACTIVE_STATES: readonly DeliveryState[] = [
  "pending",
  "uploading",
  "processing",
  "outcome_unknown",
];
/** Transient failures (or unanswered reconciles) before a delivery is failed. */
export const MAX_ATTEMPTS = 8;
/** Refresh an access token that expires within this many seconds before using it. */
const EXPIRY_MARGIN_SECONDS = 60;

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

interface DeliveryRow {
  id: string;
  post_id: string;
  social_account_id: string;
  schedule_id: string | null;
  status: DeliveryState;
  network_ids: NetworkIds;
  options: Record<string, unknown>;
  attempt: number;
  step_started_at: Date | null;
  /** The approval's binding (./content.ts); null on deliveries made without one (automation output). */
  content_fingerprint: string | null;
  approved_link: string | null;
  approved_board_id: string | null;
}

async function buildJob(
  app: AppContext,
  row: DeliveryRow,
  account: OpenedAccount,
  signal: AbortSignal | undefined,
): Promise<DeliveryJob> {
  const post = await app.db("posts").where({ id: row.post_id }).first();
  const media = await postMedia(app.db, post);
  const storage = app.providers.storage;
  // The Pin's link and board as approved; a delivery without an approval binding reads the product's URL.
  const product =
    row.content_fingerprint === null && post.product_id
      ? await app.db("products").where({ id: post.product_id }).whereNull("deleted_at").first("product_url")
      : undefined;
  const settings =
    row.approved_board_id !== null
      ? { ...account.settings, [BOARD_SETTING]: row.approved_board_id }
      : account.settings;
  const jobMedia: JobMedia[] = media.map((m) => ({
    assetId: m.assetId,
    kind: m.kind,
    mime: m.mime,
    width: m.width,
    height: m.height,
    bytes: m.bytes,
    durationSeconds: m.durationSeconds ?? undefined,
    altText: m.altText ?? null,
    publicUrl: () =>
      signedMediaUrl(app.config.publicBaseUrl, app.keys.encryptionKeys, m.assetId, app.clock.now()),
    open: async (range) => {
      const { stream } = await storage.read(m.storageKey);
      return range ? sliceStream(stream, range.start, range.end) : stream;
    },
  }));
  return {
    delivery: { id: row.id, state: row.status, networkIds: row.network_ids ?? {}, attempt: row.attempt },
    post: {
      caption: post.caption ?? "",
      title: post.title ?? null,
      type: post.type,
      media: jobMedia,
      options: row.options ?? {},
      productUrl: row.content_fingerprint === null ? (product?.product_url ?? null) : row.approved_link,
    },
    account: { ...adapterAccount(account), settings },
    signal,
  };
}

/** Safe text of an error for the delivery record: only adapter messages (which never carry secrets). */
function safeReason(err: unknown): string {
  return err instanceof Error && err.name.startsWith("Network")
    ? err.message.slice(0, 500)
    : "internal error";
}

/**
 * Claims and runs one step of delivery `id` when it is due, unleased and active, while no other step of the
 * same account runs on any worker (the account lease, ./lanes-state.ts `withAccountLease`).
 * @returns the state after the step, or undefined when the delivery was not claimed (not due, leased by
 *   another worker, finished, or another step of its account under way).
 */
export async function runDeliveryStep(
  app: AppContext,
  id: string,
  signal?: AbortSignal,
): Promise<DeliveryState | undefined> {
  const lease = app.config.social.deliveryLeaseSeconds;
  return withAccountLease(app, id, lease, () => claimAndStep(app, id, signal));
}

async function claimAndStep(
  app: AppContext,
  id: string,
  signal: AbortSignal | undefined,
): Promise<DeliveryState | undefined> {
  const now = app.clock.now();
  const [row] = (await scheduleStarted(app.db("deliveries"))
    .where({ id })
    .whereIn("status", ACTIVE_STATES as DeliveryState[])
    .where((q) => q.whereNull("next_attempt_at").orWhere("next_attempt_at", "<=", now))
    .where((q) => q.whereNull("locked_until").orWhere("locked_until", "<", now))
    .update({ locked_until: new Date(now.getTime() + app.config.social.deliveryLeaseSeconds * 1000) })
    .returning([
      "id",
      "post_id",
      "social_account_id",
      "schedule_id",
      "status",
      "network_ids",
      "options",
      "attempt",
      "step_started_at",
      "content_fingerprint",
      "approved_link",
      "approved_board_id",
    ])) as DeliveryRow[];
  if (!row) return undefined;
  const state = await observeDeliveryStep(app, row, () => stepClaimed(app, row, signal));
  if (state === "published" || state === "failed") await settleParents(app, row);
  // The first comment goes under the post as soon as it is live (./first-comment.ts; later passes retry).
  if (state === "published") await postFirstComment(app, row.id, signal);
  return state;
}

async function update(app: AppContext, id: string, patch: Record<string, unknown>): Promise<void> {
  await app
    .db("deliveries")
    .where({ id })
    .update({ ...patch, locked_until: null, updated_at: app.clock.now() });
}

async function fail(app: AppContext, row: DeliveryRow, reason: string): Promise<"failed"> {
  await update(app, row.id, {
    status: "failed",
    error: reason,
    step_started_at: null,
    next_attempt_at: null,
  });
  return "failed";
}

async function stepClaimed(
  app: AppContext,
  row: DeliveryRow,
  signal: AbortSignal | undefined,
): Promise<DeliveryState> {
  const mustReconcile = row.status === "outcome_unknown" || row.step_started_at !== null;
  // Defence in depth: before any step that can create something on the network, the post must still be
  // what was approved (a step left mid-way is first reconciled: something may already exist there).
  if (!mustReconcile && row.content_fingerprint !== null) {
    const binding = {
      content_fingerprint: row.content_fingerprint,
      approved_link: row.approved_link,
      approved_board_id: row.approved_board_id,
    };
    if (!(await deliveryStillApproved(app.db, row.post_id, binding)))
      return fail(app, row, CHANGED_AFTER_APPROVAL);
  }
  let account: OpenedAccount;
  try {
    account = await openAccount(app.db, app.sealer, row.social_account_id);
  } catch {
    return fail(app, row, "the destination account no longer exists");
  }
  const label = `${NETWORK_RULES[account.network].label} account ${account.handle ? `@${account.handle}` : account.id}`;
  if (account.status !== "connected")
    return fail(
      app,
      row,
      account.status === "disconnected"
        ? `the ${label} was disconnected`
        : `the ${label} needs to be reconnected on /settings/social`,
    );
  let adapter: NetworkAdapter;
  try {
    adapter = app.providers.networks.forAccount(account.network, account.mode);
  } catch (err) {
    return fail(app, row, (err as Error).message);
  }
  const authFailed = async (err: unknown) => {
    const reason = `the ${label} needs to be reconnected on /settings/social: ${safeReason(err)}`;
    await markNeedsReconnect(app.db, account.id, safeReason(err), app.clock.now());
    return fail(app, row, reason);
  };
  // Refresh a token about to expire before using it, under the account's refresh lock (transient refresh
  // errors retry later).
  const exp = account.tokens.expiresAt;
  if (exp && exp.getTime() - app.clock.now().getTime() < EXPIRY_MARGIN_SECONDS * 1000) {
    try {
      const outcome = await refreshAccountTokens(app, account.id, adapter, EXPIRY_MARGIN_SECONDS);
      if (outcome.kind === "not_connected") return fail(app, row, `the ${label} was disconnected`);
      account.tokens = outcome.tokens;
    } catch (err) {
      if (err instanceof NetworkAuthError) return authFailed(err);
      return retryLater(app, row, err, row.status);
    }
  }
  const job = await buildJob(app, row, account, signal);
  const ids: NetworkIds = { ...(row.network_ids ?? {}) };
  const save = async (patch: NetworkIds) => {
    Object.assign(ids, patch);
    await app
      .db("deliveries")
      .where({ id: row.id })
      .update({
        network_ids: app.db.raw("network_ids || ?::jsonb", [JSON.stringify(patch)]),
        updated_at: app.clock.now(),
      });
  };
  // A deleted post is never published: no step that can create something starts for it (a reconcile only
  // asks the network what exists, and then comes back here before any create).
  if (!(await startStep(app, row, !mustReconcile)))
    return fail(app, row, postDeletedReason(Object.keys(ids).length > 0));
  try {
    if (mustReconcile) {
      const r = await adapter.publisher.reconcile(job, save);
      if (r.state === "not_created") {
        // Nothing happened on the network side: continue from the last saved step on the next claim.
        const back: DeliveryState = Object.keys(ids).length === 0 ? "pending" : "uploading";
        await update(app, row.id, { status: back, step_started_at: null, next_attempt_at: app.clock.now() });
        return back;
      }
      return saveResult(app, row, r);
    }
    if (row.status === "pending" && Object.keys(ids).length === 0 && adapter.publisher.publishingLimit) {
      const quota = await adapter.publisher.publishingLimit(job);
      if (quota && quota.used >= quota.limit)
        return fail(
          app,
          row,
          `the ${label} reached its publishing limit (${quota.used} of ${quota.limit} posts in ${Math.round(quota.windowSeconds / 3600)} h); publish again later`,
        );
    }
    const result = await adapter.publisher.step(job, save);
    return saveResult(app, row, result);
  } catch (err) {
    if (err instanceof NetworkAuthError) return authFailed(err);
    if (err instanceof NetworkRejectedError) return fail(app, row, err.reason.slice(0, 500));
    if (err instanceof NetworkRateLimitError) {
      // The delivery lanes observing this step pause the account or the network (./lanes-state.ts).
      reportUsage({ scope: err.scope, seconds: err.retryAfterSeconds, source: "rate-limit answer" });
      await update(app, row.id, {
        step_started_at: null,
        next_attempt_at: new Date(app.clock.now().getTime() + Math.max(1, err.retryAfterSeconds) * 1000),
        error: `rate limited by the network: waiting ${err.retryAfterSeconds} s`,
      });
      return row.status;
    }
    if (err instanceof NetworkTransientError && err.afterCreate)
      return retryLater(app, row, err, "outcome_unknown");
    if (!(err instanceof NetworkTransientError))
      app.log.warn(
        { delivery_id: row.id, errName: (err as Error)?.name },
        "delivery step failed unexpectedly",
      );
    return retryLater(app, row, err, mustReconcile ? "outcome_unknown" : row.status);
  }
}

/**
 * Marks the step of `row` started (`step_started_at`). With `unlessDeleted`, only while its post is not
 * deleted, checked in the same UPDATE, so a delete_post that committed before the step started always stops
 * it. @returns false when the post is deleted (nothing was started).
 */
async function startStep(app: AppContext, row: DeliveryRow, unlessDeleted: boolean): Promise<boolean> {
  const now = app.clock.now();
  const q = app.db("deliveries").where({ id: row.id });
  if (unlessDeleted)
    q.whereNotExists((e) =>
      e.select(1).from("posts as p").whereRaw("p.id = deliveries.post_id").whereNotNull("p.deleted_at"),
    );
  return (await q.update({ step_started_at: now, updated_at: now })) > 0;
}

async function retryLater(
  app: AppContext,
  row: DeliveryRow,
  err: unknown,
  state: DeliveryState,
): Promise<DeliveryState> {
  const attempt = row.attempt + 1;
  if (attempt >= MAX_ATTEMPTS)
    return fail(
      app,
      row,
      state === "outcome_unknown"
        ? `the network did not confirm whether the post was created after ${attempt} attempts (${safeReason(err)}); check the account on the network before publishing again`
        : `the network did not answer after ${attempt} attempts (${safeReason(err)})`,
    );
  await update(app, row.id, {
    status: state,
    attempt,
    step_started_at: null,
    next_attempt_at: new Date(app.clock.now().getTime() + backoffSeconds(attempt) * 1000),
    error: safeReason(err),
  });
  return state;
}

async function saveResult(app: AppContext, row: DeliveryRow, r: StepResult): Promise<DeliveryState> {
  const now = app.clock.now();
  if (r.state === "published") {
    await update(app, row.id, {
      status: "published",
      post_url: r.postUrl,
      post_url_kind: r.postUrlKind ?? "post",
      provider_post_id: r.networkPostId,
      published_at: now,
      error: null,
      step_started_at: null,
      next_attempt_at: null,
    });
    return "published";
  }
  if (r.state === "failed") return fail(app, row, r.reason.slice(0, 500));
  await update(app, row.id, {
    status: r.state,
    error: null,
    step_started_at: null,
    attempt: 0,
    next_attempt_at: new Date(now.getTime() + Math.max(0, r.pollAfterSeconds) * 1000),
  });
  return r.state;
}

/** After a delivery finished: the post's status and its schedule's status follow. */
async function settleParents(app: AppContext, row: { post_id: string; schedule_id: string | null }) {
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

/**
 * Runs the steps of `ids` until each is finished or must wait, for at most `budgetSeconds` of the app's clock
 * (the system's time in the service; then the periodic pass, `runDueDeliveries`, carries on), waiting on
 * that clock between steps (`Clock.sleep`). Used right after publish_post so a sandbox or fast network
 * answers with `published` in the same call.
 */
export async function advanceDeliveries(
  app: AppContext,
  ids: readonly string[],
  options: { budgetSeconds?: number; signal?: AbortSignal | undefined } = {},
): Promise<void> {
  const deadline = app.clock.now().getTime() + (options.budgetSeconds ?? 20) * 1000;
  for (;;) {
    for (const id of ids) {
      if (options.signal?.aborted) return;
      await runDeliveryStep(app, id, options.signal);
    }
    const open: Array<{ next_attempt_at: Date | null; locked_until: Date | null }> = await scheduleStarted(
      app.db("deliveries"),
    )
      .whereIn("id", ids)
      .whereIn("status", ACTIVE_STATES as DeliveryState[])
      .select("next_attempt_at", "locked_until");
    const now = app.clock.now().getTime();
    const waits = open.map((d) =>
      Math.max(0, (d.next_attempt_at?.getTime() ?? now) - now, (d.locked_until?.getTime() ?? now) - now),
    );
    if (waits.length === 0) return;
    const wait = Math.min(...waits);
    if (now + wait > deadline) return;
    if (wait > 0) await app.clock.sleep(wait, options.signal).catch(() => {});
  }
}

/** What one delivery pass did: deliveries it picked as due (at most its limit) and those it stepped. */
export interface DeliveryPassReport {
  /** Due deliveries the pass picked; equal to the limit when more may be due (a full pass). */
  picked: number;
  /** Picked deliveries whose step this pass ran (the others were claimed by another worker meanwhile). */
  stepped: number;
}

/**
 * One pass of the delivery worker: steps every due delivery (active, due, not leased, or leased by a worker
 * that died), at most `limit`. Run once a minute by the scheduler pass (a backstop of the workers' delivery
 * lanes, src/operations/deliveries.ts) and by tests.
 * Fair across networks (docs/operations.md "The delivery loop"): the `limit` is shared round-robin between the networks that have due
 * deliveries (each network's own oldest first), and each network's deliveries are stepped in their own lane,
 * the lanes side by side, so one slow network does not hold the others. Each step still takes the delivery's
 * lease (`runDeliveryStep`), so two workers never step the same delivery at once.
 * @param options.limit deliveries picked at most (default 50).
 * @param options.stop once aborted, no further step is started (the running ones finish).
 * @param options.signal handed to the adapters' calls of the steps (aborts them).
 * @returns the deliveries picked and stepped.
 */
export async function runDeliveryPass(
  app: AppContext,
  options: { limit?: number; stop?: AbortSignal | undefined; signal?: AbortSignal | undefined } = {},
): Promise<DeliveryPassReport> {
  const limit = options.limit ?? 50;
  const { stop, signal } = options;
  const now = app.clock.now();
  const ranked = scheduleStarted(app.db("deliveries"))
    .join("social_accounts", "social_accounts.id", "deliveries.social_account_id")
    .whereIn("deliveries.status", ACTIVE_STATES as DeliveryState[])
    .where((q) => q.whereNull("deliveries.next_attempt_at").orWhere("deliveries.next_attempt_at", "<=", now))
    .where((q) => q.whereNull("deliveries.locked_until").orWhere("deliveries.locked_until", "<", now))
    .select(
      "deliveries.id",
      "social_accounts.network",
      "deliveries.next_attempt_at",
      app.db.raw(
        "row_number() over (partition by social_accounts.network order by deliveries.next_attempt_at asc nulls first, deliveries.id) as turn",
      ),
    )
    .as("ranked");
  const due: Array<{ id: string; network: string }> = await app.db
    .from(ranked)
    .orderBy([{ column: "turn" }, { column: "network" }])
    .limit(limit)
    .select("id", "network");
  const lanes = new Map<string, string[]>();
  for (const d of due) lanes.set(d.network, [...(lanes.get(d.network) ?? []), d.id]);
  let n = 0;
  await Promise.all(
    [...lanes.values()].map(async (ids) => {
      for (const id of ids) {
        if (stop?.aborted || signal?.aborted) break;
        if ((await runDeliveryStep(app, id, signal)) !== undefined) n += 1;
      }
    }),
  );
  if (!stop?.aborted && !signal?.aborted) n += await runDueFirstComments(app, { limit, stop, signal });
  return { picked: due.length, stepped: n };
}

/**
 * One delivery pass (`runDeliveryPass`) of at most `limit` deliveries, `signal` both stopping it between
 * steps and aborting the adapters' calls.
 * @returns how many deliveries were stepped.
 */
export async function runDueDeliveries(app: AppContext, limit = 50, signal?: AbortSignal): Promise<number> {
  return (await runDeliveryPass(app, { limit, stop: signal, signal })).stepped;
}
