/**
 * One step of a claimed delivery (service spec 2.7, 3.1; docs/social.md "The delivery engine"): the approval
 * and deletion checks, the account and its tokens, the adapter's `step` or `reconcile` with the network ids
 * saved as they appear, and the result saved (published, failed, the next poll, or a retry with backoff).
 */
import { createHash } from "node:crypto";
import type { AppContext } from "../../context.ts";
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
import { sliceStream } from "../media/byte-range.ts";
import { signedMediaUrl } from "../media/public-url.ts";
import { markNeedsReconnect, type OpenedAccount, openAccount, openAccountRow } from "./accounts.ts";
import { adapterAccount } from "./account-settings.ts";
import { refreshAccountTokens } from "./refresh.ts";
import { postMedia, postMediaOf } from "./validate.ts";
import { CHANGED_AFTER_APPROVAL, deliveryStillApproved } from "./content.ts";
import { postDeletedReason } from "./deliveries.ts";
import { LINKEDIN_CAROUSEL_SETTING } from "../../providers/social/linkedin/documents.ts";
import { BOARD_SETTING } from "../../providers/social/pinterest/boards.ts";
import { reportUsage, type UsageStop } from "../../providers/social/usage.ts";
import { backoffSeconds, MAX_ATTEMPTS } from "./delivery-states.ts";
import { runPrepared, statement } from "../../db/prepared.ts";
import { beforeNetworkCalls } from "../../providers/social/before-call.ts";
import { startWindowFrees } from "./start-window.ts";

/**
 * Writes network ids the adapter was told ($1 the ids, a JSON object merged in, $2 now, $3 the delivery):
 * before the adapter's next network request (../../providers/social/before-call.ts), or, when the step makes
 * none, with the step's last update (`update`).
 */
const SAVE_IDS = statement(
  "delivery-save-ids",
  "update deliveries set network_ids = network_ids || $1::jsonb, updated_at = $2 where id = $3::uuid",
);

/** Refresh an access token that expires within this many seconds before using it. */
const EXPIRY_MARGIN_SECONDS = 60;

export interface DeliveryRow {
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
  /** How a LinkedIn post of several images goes out, as approved (./content.ts `deliveryBinding`). */
  approved_format?: "document" | "images" | null | undefined;
}

/**
 * A delivery as its claim returned it (./delivery-claim.ts): the row, whether its post is deleted, its
 * account's and post's rows read in the same statement, and the account lease the step holds.
 */
export interface ClaimedDelivery extends DeliveryRow {
  /** The post was deleted (read at the claim; a step that must reconcile goes on all the same). */
  postDeleted: boolean;
  /** The account's row (accounts.ts `OPENED_ACCOUNT_COLUMNS`); undefined when the account is gone. */
  account: Record<string, any> | undefined;
  /** The post's type, title, caption, media_asset_ids, alt_texts, product_id and media_rows (JSON). */
  post: Record<string, any> | undefined;
  /**
   * The account lease (./lanes-state.ts) this step holds: `releaseWithUpdate`, given back by the step's last
   * update of the delivery (`update`), which then sets `released`.
   */
  lease: { holder: string; releaseWithUpdate: boolean; released: boolean };
  /** Network ids the adapter saved in this step that are not written yet (`update` writes them). */
  unsavedIds?: NetworkIds | undefined;
  /** Set by the step: the delivery's next step is due at once (the adapter asked for no wait). */
  dueAgain?: boolean | undefined;
}

/** The post's media: from the rows the claim read, or (a carousel's slides) read now. */
async function jobPostMedia(app: AppContext, row: ClaimedDelivery, post: Record<string, any>) {
  const ids: string[] = Array.isArray(post.media_asset_ids) ? post.media_asset_ids.map(String) : [];
  if (ids.length === 0 || !Array.isArray(post.media_rows))
    return postMedia(app.db, {
      id: row.post_id,
      type: post.type,
      media_asset_ids: ids,
      alt_texts: post.alt_texts ?? null,
    });
  return postMediaOf(ids, Array.isArray(post.alt_texts) ? post.alt_texts : [], post.media_rows);
}

async function buildJob(
  app: AppContext,
  row: ClaimedDelivery,
  account: OpenedAccount,
  signal: AbortSignal | undefined,
): Promise<DeliveryJob> {
  const post = row.post ?? (await app.db("posts").where({ id: row.post_id }).first());
  const media = await jobPostMedia(app, row, post);
  const storage = app.providers.storage;
  // The Pin's link and board as approved; a delivery without an approval binding reads the product's URL.
  const product =
    row.content_fingerprint === null && post.product_id
      ? await app.db("products").where({ id: post.product_id }).whereNull("deleted_at").first("product_url")
      : undefined;
  // The LinkedIn format as approved: changing the account's `linkedin_carousel` afterwards changes nothing.
  const settings = {
    ...account.settings,
    ...(row.approved_board_id !== null ? { [BOARD_SETTING]: row.approved_board_id } : {}),
    ...(row.approved_format ? { [LINKEDIN_CAROUSEL_SETTING]: row.approved_format } : {}),
  };
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
 * The update of `columns` ($1..$n, then the delivery's id at $n+1), with unwritten network ids merged in
 * (`ids`: at $n+2) or not, and the account lease given back (its account and holder next) or not.
 */
const updates = new Map<string, ReturnType<typeof statement>>();
function updateStatement(columns: readonly string[], release: boolean, ids: boolean) {
  const key = `${release ? "r" : "-"}${ids ? "i" : "-"}:${columns.join(",")}`;
  let stmt = updates.get(key);
  if (!stmt) {
    const n = (ids ? 1 : 0) + columns.length;
    const set = [
      ...columns.map((c, i) => `"${c}" = $${i + 1}`),
      ...(ids ? [`network_ids = network_ids || $${n + 1}::jsonb`] : []),
    ].join(", ");
    // PostgreSQL keeps 63 characters of a statement's name: the columns are named by their hash.
    stmt = statement(
      `delivery-update:${createHash("sha256").update(key).digest("hex").slice(0, 16)}`,
      release
        ? `with released as (delete from delivery_account_leases
             where social_account_id = $${n + 2}::uuid and holder = $${n + 3}::uuid)
           update deliveries set ${set} where id = $${columns.length + 1}::uuid`
        : `update deliveries set ${set} where id = $${columns.length + 1}::uuid`,
    );
    updates.set(key, stmt);
  }
  return stmt;
}

/** The states a step that started a post on its network leaves it in (its first create was sent). */
const STARTED: ReadonlySet<unknown> = new Set(["uploading", "processing", "published", "outcome_unknown"]);

/**
 * The step's last update of the delivery: `patch` with its lease (`locked_until`) ended, the network ids
 * not written yet merged in (`ClaimedDelivery.unsavedIds`), and the account lease given back in the same
 * statement unless a first comment still needs it (`ClaimedDelivery.lease`). A delivery leaving `pending`
 * for a started state gets `started_at` (./start-window.ts reads an account's starts).
 */
async function update(app: AppContext, row: ClaimedDelivery, patch: Record<string, unknown>): Promise<void> {
  const now = app.clock.now();
  const started = row.status === "pending" && STARTED.has(patch.status) ? { started_at: now } : {};
  const full: Record<string, unknown> = { ...patch, ...started, locked_until: null, updated_at: now };
  const columns = Object.keys(full);
  const release = row.lease.releaseWithUpdate && !row.lease.released;
  const unsaved = row.unsavedIds ?? {};
  const ids = Object.keys(unsaved).length > 0;
  const values = [...columns.map((c) => full[c]), row.id];
  if (ids) values.push(JSON.stringify(unsaved));
  if (release) values.push(row.social_account_id, row.lease.holder);
  await runPrepared(app.db, updateStatement(columns, release, ids), values);
  if (ids) for (const k of Object.keys(unsaved)) delete unsaved[k];
  if (release) row.lease.released = true;
}

async function fail(app: AppContext, row: ClaimedDelivery, reason: string): Promise<"failed"> {
  await update(app, row, {
    status: "failed",
    error: reason,
    step_started_at: null,
    next_attempt_at: null,
  });
  return "failed";
}

export async function stepClaimed(
  app: AppContext,
  row: ClaimedDelivery,
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
    account = row.account
      ? openAccountRow(app.sealer, row.account)
      : await openAccount(app.db, app.sealer, row.social_account_id);
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
  const refreshing =
    exp !== undefined && exp.getTime() - app.clock.now().getTime() < EXPIRY_MARGIN_SECONDS * 1000;
  if (refreshing) {
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
  // An id the network named is written before the adapter's next request (`writeIds`, run by the social
  // HTTP client) or with the step's last update, whichever comes first: one statement fewer per id.
  const unsaved: NetworkIds = {};
  row.unsavedIds = unsaved;
  const save = async (patch: NetworkIds) => {
    Object.assign(ids, patch);
    Object.assign(unsaved, patch);
  };
  const writeIds = async () => {
    if (Object.keys(unsaved).length === 0) return;
    const patch = JSON.stringify(unsaved);
    for (const k of Object.keys(unsaved)) delete unsaved[k];
    await runPrepared(app.db, SAVE_IDS, [patch, app.clock.now(), row.id]);
  };
  // A deleted post is never published: no step that can create something starts for it (a reconcile only
  // asks the network what exists, and then comes back here before any create). The claim marked the step
  // started unless the post was deleted, in the same statement (./delivery-claim.ts); after a token refresh
  // (a network call meanwhile) it is checked again, as the step starts now.
  const deleted = refreshing
    ? !(await startStep(app, row, !mustReconcile))
    : row.postDeleted && !mustReconcile;
  if (deleted) return fail(app, row, postDeletedReason(Object.keys(ids).length > 0));
  try {
    if (mustReconcile) {
      const r = await beforeNetworkCalls(writeIds, () => adapter.publisher.reconcile(job, save));
      if (r.state === "not_created") {
        // Nothing happened on the network side: continue from the last saved step on the next claim.
        const back: DeliveryState = Object.keys(ids).length === 0 ? "pending" : "uploading";
        await update(app, row, { status: back, step_started_at: null, next_attempt_at: app.clock.now() });
        row.dueAgain = true;
        return back;
      }
      return saveResult(app, row, r);
    }
    const window = adapter.publisher.startWindow;
    const starting = row.status === "pending" && Object.keys(ids).length === 0;
    if (starting && window) {
      // The account's start budget is kept, not met with a refusal: no start while its starts fill the window.
      const seconds = await startWindowFrees(app, row.social_account_id, window);
      if (seconds !== undefined)
        return waitForBudget(app, row, {
          scope: "token",
          seconds,
          source: `start budget (${window.calls} in ${window.seconds} s)`,
          startsOnly: true,
          error: `waiting ${seconds} s: ${NETWORK_RULES[account.network].label} takes at most ${window.calls} new posts from an account in ${window.seconds} s, and this account started ${window.calls}`,
        });
    }
    if (starting && adapter.publisher.publishingLimit) {
      const quota = await adapter.publisher.publishingLimit(job);
      if (quota && quota.used >= quota.limit)
        return fail(
          app,
          row,
          `the ${label} reached its publishing limit (${quota.used} of ${quota.limit} posts in ${Math.round(quota.windowSeconds / 3600)} h); publish again later`,
        );
    }
    const result = await beforeNetworkCalls(writeIds, () => adapter.publisher.step(job, save));
    return saveResult(app, row, result);
  } catch (err) {
    if (err instanceof NetworkAuthError) return authFailed(err);
    if (err instanceof NetworkRejectedError) return fail(app, row, err.reason.slice(0, 500));
    if (err instanceof NetworkRateLimitError) {
      // A start budget over a documented window is free again when this service's oldest start in it
      // leaves it (./start-window.ts), usually well before a whole window from the refusal.
      const window = err.startsOnly ? adapter.publisher.startWindow : undefined;
      const seconds =
        (window && (await startWindowFrees(app, row.social_account_id, window))) ?? err.retryAfterSeconds;
      return waitForBudget(app, row, {
        scope: err.scope,
        seconds,
        source: "rate-limit answer",
        startsOnly: err.startsOnly,
        error: `rate limited by the network: waiting ${seconds} s`,
      });
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
 * Leaves `row` in its state until `stop.seconds` from now (at least 1) with `stop.error` as its reason, and
 * reports the stop to the caller observing usage: the delivery lanes then pause the account or the network
 * (./lanes-state.ts). @returns the state, unchanged.
 */
async function waitForBudget(
  app: AppContext,
  row: ClaimedDelivery,
  stop: UsageStop & { error: string },
): Promise<DeliveryState> {
  const { error, ...usage } = stop;
  reportUsage(usage);
  await update(app, row, {
    step_started_at: null,
    next_attempt_at: new Date(app.clock.now().getTime() + Math.max(1, stop.seconds) * 1000),
    error,
  });
  return row.status;
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
  row: ClaimedDelivery,
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
  await update(app, row, {
    status: state,
    attempt,
    step_started_at: null,
    next_attempt_at: new Date(app.clock.now().getTime() + backoffSeconds(attempt) * 1000),
    error: safeReason(err),
  });
  return state;
}

async function saveResult(app: AppContext, row: ClaimedDelivery, r: StepResult): Promise<DeliveryState> {
  const now = app.clock.now();
  if (r.state === "published") {
    await update(app, row, {
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
  await update(app, row, {
    status: r.state,
    error: null,
    step_started_at: null,
    attempt: 0,
    next_attempt_at: new Date(now.getTime() + Math.max(0, r.pollAfterSeconds) * 1000),
  });
  row.dueAgain = r.pollAfterSeconds <= 0;
  return r.state;
}
