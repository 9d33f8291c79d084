/**
 * Reading one social account in the metrics sync (service spec 6.3; the runs and jobs are ./sync.ts): the
 * account's lifetime counters and those of each of its published deliveries (only content published through
 * the service) through the account's network adapter (`NetworkMetrics` of ctx.providers.networks: the live
 * adapter for live accounts, the sandbox connector's labelled sandbox numbers for sandbox accounts) into
 * `account_metrics` and `post_metrics` (./saved-metrics.ts). A metric the network does not report is saved
 * as null and listed as missing, never 0; a counter the network refused in a read that gave the others (a
 * permission the grant lacks) is null with the refusal as the row's sync error (`refusedNote`).
 *
 * Posts are read in batches where the adapter reads several in one call (`readPostMetricsBatch`, its
 * `postBatchSize`), one by one otherwise; each batch is saved as it arrives. Calls go through the job's
 * pacer (./pacing.ts). An account or delivery whose read fails keeps its previous values with the reason
 * (`last_error`), which makes its coverage partial:
 * - `NetworkAuthError` (a 401: an expired or revoked access token): the tokens are refreshed first
 *   (`refreshAccountTokens`, under the account's refresh lock) and the read is tried again; only when the
 *   network refuses the refresh (or the fresh token too) does the account become `needs_reconnect`
 *   (markNeedsReconnect), and its posts are not read; a refresh that fails for another reason (a 5xx, a
 *   timeout) leaves the account connected and the rest of it for the next sync;
 * - a network that rate limits for longer than `ANALYTICS_SYNC_MAX_WAIT_SECONDS`: the rest of the account
 *   is left for the next sync;
 * - anything else: that account or post only.
 * Accounts that are not connected are not read (reason recorded). An account or delivery already attempted
 * at or after the run's time is not read again (a job taken over after a crash: `accountReadAt`,
 * `deliveryRows`). Idempotent: upserts keyed by account and delivery.
 */
import type { AppContext } from "../../context.ts";
import {
  type MetricsPost,
  type NetworkAdapter,
  NetworkAuthError,
  NetworkError,
  type NetworkIds,
  type PostBatchRead,
  type RefusedMetric,
} from "../../providers/social/network.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";
import { adapterAccount } from "../social/account-settings.ts";
import { markNeedsReconnect, openAccount } from "../social/accounts.ts";
import { refreshAccountTokens } from "../social/refresh.ts";
import { type NetworkPacer, SyncStopped } from "./pacing.ts";
import {
  type AccountKey,
  type DeliveryKey,
  type MetricsSource,
  saveAccountCounters,
  saveAccountFailure,
  savePostCounters,
  savePostFailure,
} from "./saved-metrics.ts";

/** What one run did for one network. */
export interface NetworkSyncCounts {
  accounts_synced: number;
  accounts_failed: number;
  posts_synced: number;
  posts_failed: number;
}

export interface AccountRow extends AccountKey {
  network: Network;
  mode: string;
  status: string;
}

interface DeliveryRow extends DeliveryKey {
  social_account_id: string;
  provider_post_id: string;
  post_url_kind: "post" | "profile" | null;
  network_ids: NetworkIds | null;
  type: string;
  published_at: Date | null;
  updated_at: Date;
}

/** The accounts `ids` (every one that is not disconnected when omitted), in id order. */
export async function accountRows(app: AppContext, ids?: readonly string[]): Promise<AccountRow[]> {
  const q = app.db("social_accounts").whereNot({ status: "disconnected" });
  if (ids) q.whereIn("id", ids);
  return q
    .select({ social_account_id: "id" }, "workspace_id", "user_id", "network", "mode", "status")
    .orderBy("id");
}

/**
 * The published deliveries of `accountId` to read in the run of time `at`: not deleted, with a network post
 * id, not attempted at or after `at` (read already by this run, before a takeover), oldest first.
 */
export async function deliveryRows(app: AppContext, accountId: string, at: Date): Promise<DeliveryRow[]> {
  return app
    .db("deliveries as d")
    .join("posts as p", "p.id", "d.post_id")
    .leftJoin("post_metrics as m", "m.delivery_id", "d.id")
    .where({ "d.status": "published", "d.social_account_id": accountId })
    .whereNotNull("d.provider_post_id")
    .whereNull("p.deleted_at")
    .where((w) => w.whereNull("m.attempted_at").orWhere("m.attempted_at", "<", at))
    .select(
      { delivery_id: "d.id" },
      "d.workspace_id",
      "d.user_id",
      "d.post_id",
      "d.social_account_id",
      "d.provider_post_id",
      "d.post_url_kind",
      "d.network_ids",
      "d.published_at",
      "d.updated_at",
      "p.type",
    )
    .orderBy([{ column: "d.published_at" }, { column: "d.id" }]);
}

export interface AccountJob {
  row: AccountRow;
  posts: DeliveryRow[];
  pacer: NetworkPacer;
  counts: NetworkSyncCounts;
  at: Date;
  /**
   * How this run's earlier attempt read the account's own counters, when a job taken over after a crash
   * finds them attempted already (`accountReadAt`): `ok` true when they were saved. The account is then not
   * read again; only its posts left are.
   */
  accountReadBefore?: { ok: boolean } | undefined;
}

/**
 * Whether the run of time `at` already read the account `accountId`'s own counters (its `account_metrics`
 * row attempted at or after `at`): `{ ok }` with `ok` true when they were saved at `at`, else undefined.
 */
export async function accountReadAt(
  app: AppContext,
  accountId: string,
  at: Date,
): Promise<{ ok: boolean } | undefined> {
  const row = await app
    .db("account_metrics")
    .where({ social_account_id: accountId })
    .where("attempted_at", ">=", at)
    .first("synced_at");
  if (!row) return undefined;
  return { ok: row.synced_at !== null && new Date(row.synced_at).getTime() >= at.getTime() };
}

/** How the reason of a skipped account words its status. */
const NOT_CONNECTED: Record<string, string> = {
  needs_reconnect: "needs reconnecting",
  expired: "has expired",
  error: "is in error",
};

/** The outcome of one read: its failure is already saved; `stop` ends the account's remaining reads. */
type ReadOutcome = { ok: true } | { ok: false; stop: boolean; reason: string };

/** How one account's job ended: read (`done`, its posts possibly partial), `failed`, or `skipped` (not connected). */
export type AccountOutcome = "done" | "failed" | "skipped";

/** Reads one account and then its posts (see the module comment for what a failure does). */
export async function syncAccount(
  app: AppContext,
  { row, posts, pacer, counts, at, accountReadBefore }: AccountJob,
  signal: AbortSignal | undefined,
): Promise<AccountOutcome> {
  const label = NETWORK_RULES[row.network].label;
  let source: MetricsSource = row.mode === "live" ? "network" : "sandbox";
  const failPosts = async (rest: DeliveryRow[], reason: string) => {
    for (const p of rest) {
      await savePostFailure(app.db, deliveryKey(p), source, reason, at);
      counts.posts_failed += 1;
    }
  };
  const failAll = async (reason: string, outcome: AccountOutcome = "failed"): Promise<AccountOutcome> => {
    await saveAccountFailure(app.db, accountKey(row), source, reason, at);
    counts.accounts_failed += 1;
    await failPosts(posts, reason);
    return outcome;
  };
  if (pacer.stopped) return failAll(pacer.stopped);
  if (row.status !== "connected")
    return failAll(
      `the ${label} account ${NOT_CONNECTED[row.status] ?? `is ${row.status}`}: reconnect it on /settings/social`,
      "skipped",
    );
  let adapter: NetworkAdapter;
  try {
    adapter = app.providers.networks.forAccount(row.network, row.mode === "live" ? "live" : "sandbox");
  } catch {
    return failAll(
      `no ${label} app is configured (${row.network.toUpperCase()}_CLIENT_ID) to read this account`,
    );
  }
  source = adapter.mode === "live" ? "network" : "sandbox";
  const metrics = adapter.metrics;
  if (!metrics) return failAll(`the ${label} adapter reads no metrics`);
  const account = adapterAccount(await openAccount(app.db, app.sealer, row.social_account_id));
  /** Whether this job has refreshed the tokens after a 401 already (once per job). */
  let refreshTried = false;
  /**
   * After a 401: refreshes the tokens (once per job) and swaps them into `account`.
   * @throws the 401 itself when a refresh was tried already; NetworkAuthError when the network refuses the
   *   refresh (the account must reconnect); SyncStopped when the refresh failed otherwise (5xx, timeout:
   *   the account stays connected, the rest of it waits for the next sync).
   */
  const refreshAfter401 = async (rejected: NetworkAuthError): Promise<void> => {
    if (refreshTried) throw rejected;
    refreshTried = true;
    let outcome: Awaited<ReturnType<typeof refreshAccountTokens>>;
    try {
      outcome = await refreshAccountTokens(
        app,
        row.social_account_id,
        adapter,
        0,
        account.tokens.accessToken,
      );
    } catch (err) {
      if (err instanceof NetworkAuthError) throw err;
      const why = err instanceof NetworkError ? err.message : `internal error (${(err as Error)?.name})`;
      throw new SyncStopped(
        `the ${label} access token was refused and could not be refreshed now (${why}); the next sync tries again`,
      );
    }
    if (outcome.kind === "not_connected")
      throw new SyncStopped(`the ${label} account is no longer connected`);
    account.tokens = outcome.tokens;
  };

  /** Runs one paced read and saves its answer, or its failure. */
  const read = async <A>(
    call: () => Promise<A>,
    save: (answer: A) => Promise<void>,
    fail: (reason: string) => Promise<void>,
    what: Record<string, string>,
  ): Promise<ReadOutcome> => {
    let answer: A;
    try {
      try {
        answer = await pacer.run(call);
      } catch (err) {
        // A 401 first tries the refresh token: an access token that expired early is not a lost account.
        if (!(err instanceof NetworkAuthError)) throw err;
        await refreshAfter401(err);
        answer = await pacer.run(call);
      }
    } catch (err) {
      const name = (err as Error)?.name;
      app.log.warn({ ...what, network: row.network, err: { name } }, "analytics sync: read failed");
      let outcome: ReadOutcome;
      if (err instanceof NetworkAuthError) {
        await markNeedsReconnect(app.db, row.social_account_id, err.message, app.clock.now());
        outcome = {
          ok: false,
          stop: true,
          reason: `the ${label} account needs to be reconnected on /settings/social: ${err.message}`,
        };
      } else if (err instanceof SyncStopped) outcome = { ok: false, stop: true, reason: err.message };
      else {
        const reason = err instanceof NetworkError ? err.message : `internal error (${name})`;
        outcome = { ok: false, stop: false, reason };
      }
      await fail(outcome.reason);
      return outcome;
    }
    await save(answer);
    return { ok: true };
  };

  // Read once per run: a job taken over keeps what its earlier attempt saved (or its reason).
  const accountRead: ReadOutcome = accountReadBefore
    ? accountReadBefore.ok
      ? { ok: true }
      : { ok: false, stop: false, reason: "read before the takeover" }
    : await read(
        () => metrics.account(account, signal),
        ({ refused, ...c }) =>
          saveAccountCounters(app.db, accountKey(row), c, source, at, refusedNote(label, refused)),
        (reason) => saveAccountFailure(app.db, accountKey(row), source, reason, at),
        { social_account_id: row.social_account_id },
      );
  if (accountRead.ok) counts.accounts_synced += 1;
  else counts.accounts_failed += 1;
  if (!accountRead.ok && accountRead.stop) {
    await failPosts(posts, accountRead.reason);
    return "failed";
  }
  // Posts recorded at the creator's profile (no public id yet): ask once per run whether the network now
  // reports the real id, and read the post by it from then on (never by the publish id).
  if (metrics.resolvePublicPost) {
    for (const p of posts.filter((d) => d.post_url_kind === "profile")) {
      if (pacer.stopped) break;
      try {
        const found = await pacer.run(() => metrics.resolvePublicPost!(account, metricsPost(p), signal));
        if (!found) continue;
        await app.db("deliveries").where({ id: p.delivery_id, post_url_kind: "profile" }).update({
          provider_post_id: found.networkPostId,
          post_url: found.postUrl,
          post_url_kind: "post",
          updated_at: app.clock.now(),
        });
        p.provider_post_id = found.networkPostId;
        p.post_url_kind = "post";
      } catch (err) {
        // The read below records the post as it is; the next run asks again.
        app.log.warn(
          { delivery_id: p.delivery_id, network: row.network, err: { name: (err as Error)?.name } },
          "analytics sync: public post id not resolved",
        );
      }
    }
  }
  // Posts in batches of the network's size (one call per batch), one by one where the API reads one id.
  const batch = metrics.readPostMetricsBatch?.bind(metrics);
  const size = batch ? Math.max(1, metrics.postBatchSize ?? 1) : 1;
  for (let i = 0; i < posts.length; i += size) {
    const chunk = posts.slice(i, i + size);
    const asPosts = chunk.map(metricsPost);
    const postsRead = await read<PostBatchRead>(
      batch
        ? () => batch(account, asPosts, signal)
        : async () => {
            const { refused, ...counters } = await metrics.post(account, asPosts[0]!, signal);
            return new Map([[asPosts[0]!.networkPostId, { ...counters, refused }]]);
          },
      async (answers) => {
        // Each batch's counters are saved as it arrives.
        for (const p of chunk) {
          const one = answers.get(p.provider_post_id);
          if (one && !(one instanceof Error)) {
            const { refused, ...values } = one;
            await savePostCounters(app.db, deliveryKey(p), values, source, at, refusedNote(label, refused));
            counts.posts_synced += 1;
          } else {
            const reason = one?.message ?? `${label} did not answer for the post`;
            await savePostFailure(app.db, deliveryKey(p), source, reason, at);
            counts.posts_failed += 1;
          }
        }
      },
      (reason) => failPosts(chunk, reason),
      { delivery_ids: chunk.map((p) => p.delivery_id).join(",") },
    );
    if (!postsRead.ok && postsRead.stop) {
      await failPosts(posts.slice(i + size), postsRead.reason);
      break;
    }
  }
  return accountRead.ok ? "done" : "failed";
}

/** The delivery as the adapter's metrics read it. */
const metricsPost = (p: DeliveryRow): MetricsPost => ({
  networkPostId: p.provider_post_id,
  networkIds: p.network_ids ?? {},
  type: p.type,
  publishedAt: p.published_at ?? p.updated_at,
  postUrlKind: p.post_url_kind,
});

/**
 * The sync error of a read the network answered in part: each refused counter with the network's reason and
 * the permission that would fill it ("Facebook did not report comments (...; the pages_read_user_content
 * permission would fill it)"); undefined when nothing was refused.
 */
export function refusedNote(
  label: string,
  refused: readonly RefusedMetric[] | undefined,
): string | undefined {
  if (!refused || refused.length === 0) return undefined;
  return `${label} did not report ${refused
    .map(
      (r) =>
        `${r.metric} (${r.reason}${r.permission ? `; the ${r.permission} permission would fill it` : ""})`,
    )
    .join("; ")}`;
}

const accountKey = (r: AccountRow): AccountKey => ({
  workspace_id: r.workspace_id,
  user_id: r.user_id,
  social_account_id: r.social_account_id,
});

const deliveryKey = (r: DeliveryRow): DeliveryKey => ({
  workspace_id: r.workspace_id,
  user_id: r.user_id,
  delivery_id: r.delivery_id,
  post_id: r.post_id,
});
