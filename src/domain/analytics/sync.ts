/**
 * The metrics sync as runs of queued work (service spec 6.3; docs/analytics.md "Runs"). A run
 * (`analytics_sync_runs`) has a key, a time (`synced_at` of everything it saves) and one job per account
 * (`analytics_sync_jobs`); each job reads one account and its posts (./sync-account.ts):
 * - the nightly run (`startNightlyRun`, the worker's `analytics-sync` schedule, midnight America/New_York) is
 *   keyed by the night's date there (`nightKey`) and sends each account's job to the pg-boss queue
 *   `analytics-sync-account` with the singleton key `{night}:{account}` (`syncJobKey`; `:{claims}` added when
 *   it is sent again after a dead worker's claims), so any worker takes a share; a
 *   second start the same night plans nothing new and re-sends only what is still queued;
 * - `admin analytics sync --now` (`syncAnalytics`) plans a run keyed `now-{ISO time}` and works through it
 *   in its own process (`drainSyncRun`); workers running at the same time may take some of its jobs;
 * - a job is claimed by one conditional UPDATE (`queued` -> `running`, a lease of WORKER_LEASE_SECONDS
 *   extended while it reads); a job whose lease ran out lost its worker and is queued again
 *   (`requeueExpiredSyncJobs`, every worker's reaper; after MAX_SYNC_ATTEMPTS claims it fails); neither its
 *   account's own counters nor its deliveries already read by the run are read again; a job that ended is
 *   never read again;
 * - the run row counts accounts planned, done, failed (the account read failed), skipped (not connected)
 *   and gets `finished_at` when every planned account ended (`syncRunStatus`, `admin analytics sync
 *   --status`).
 */
import type { AppContext } from "../../context.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";
import { refreshExpiringTokens } from "../social/refresh.ts";
import { appStop, appStopRecord, chargeYouTubeUnit, recordAppStop } from "./budgets.ts";
import { networkPacer } from "./pacing.ts";
import {
  type AccountOutcome,
  accountReadAt,
  accountRows,
  deliveryRows,
  type NetworkSyncCounts,
  syncAccount,
} from "./sync-account.ts";

export { type NetworkSyncCounts, refusedNote } from "./sync-account.ts";

/** The time zone of the nightly run and of its key. */
export const SYNC_TIME_ZONE = "America/New_York";

/** Claims of one account's job before it is failed rather than taken over again. */
export const MAX_SYNC_ATTEMPTS = 3;

export interface SyncReport {
  /** The run's time (ISO 8601): `synced_at` of everything it saved. */
  synced_at: string;
  /** Counts per network that has accounts (not disconnected). */
  networks: Partial<Record<Network, NetworkSyncCounts>>;
}

/** A run's row: its key, time and progress. */
export interface SyncRun {
  id: string;
  run_key: string;
  synced_at: Date;
  accounts_planned: number;
  accounts_done: number;
  accounts_failed: number;
  accounts_skipped: number;
  finished_at: Date | null;
}

/** Sends the job `jobId` to the account queue with `singletonKey` (the worker's pg-boss producer). */
export type SendSyncJob = (jobId: string, singletonKey: string) => Promise<unknown>;

/** The night of `at` in America/New_York as `YYYY-MM-DD` (the nightly run's key). */
export function nightKey(at: Date): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: SYNC_TIME_ZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(at);
}

/**
 * Creates the run `runKey` at time `at` if it does not exist, with one queued job per account that is not
 * disconnected (an existing run keeps its jobs and progress).
 * @returns the run and its jobs still queued (id, account).
 */
export async function planSyncRun(
  app: AppContext,
  runKey: string,
  at: Date,
): Promise<{ run: SyncRun; queued: Array<{ id: string; social_account_id: string; attempts: number }> }> {
  await app
    .db("analytics_sync_runs")
    .insert({ run_key: runKey, synced_at: at })
    .onConflict("run_key")
    .ignore();
  const run: SyncRun = await app.db("analytics_sync_runs").where({ run_key: runKey }).first();
  if (run.accounts_planned === 0 && !run.finished_at) {
    const accounts = await accountRows(app);
    if (accounts.length > 0)
      await app
        .db("analytics_sync_jobs")
        .insert(
          accounts.map((a) => ({
            run_id: run.id,
            social_account_id: a.social_account_id,
            network: a.network,
          })),
        )
        .onConflict(["run_id", "social_account_id"])
        .ignore();
    const [counted] = await app.db("analytics_sync_jobs").where({ run_id: run.id }).count({ n: "*" });
    const planned = Number(counted?.n ?? 0);
    await app
      .db("analytics_sync_runs")
      .where({ id: run.id })
      .update({
        accounts_planned: planned,
        finished_at: planned === 0 ? app.clock.now() : null,
        updated_at: app.clock.now(),
      });
    Object.assign(run, await app.db("analytics_sync_runs").where({ id: run.id }).first());
  }
  const queued = await app
    .db("analytics_sync_jobs")
    .where({ run_id: run.id, status: "queued" })
    .select("id", "social_account_id", "attempts")
    .orderBy("social_account_id");
  return { run, queued };
}

/**
 * The nightly run (the worker's schedule): refreshes expiring tokens, plans the night's run (or finds it)
 * and sends each queued job through `send` with the singleton key `{night}:{account}`.
 * @returns the run.
 */
export async function startNightlyRun(app: AppContext, send: SendSyncJob): Promise<SyncRun> {
  await refreshExpiringTokens(app);
  const now = app.clock.now();
  const { run, queued } = await planSyncRun(app, nightKey(now), now);
  for (const job of queued) await send(job.id, syncJobKey(run.run_key, job.social_account_id, job.attempts));
  app.log.info(
    { run_key: run.run_key, planned: run.accounts_planned, sent: queued.length },
    "analytics sync planned",
  );
  return run;
}

/**
 * Continues the unfinished runs (a worker starting, the reaper): jobs whose lease ran out are queued again
 * and every queued job is sent again (a job still waiting in pg-boss is not duplicated: its singleton key).
 * @returns the number of jobs sent.
 */
export async function resumeSyncRuns(app: AppContext, send: SendSyncJob): Promise<number> {
  await requeueExpiredSyncJobs(app);
  const jobs: Array<{ id: string; social_account_id: string; run_key: string; attempts: number }> = await app
    .db("analytics_sync_jobs as j")
    .join("analytics_sync_runs as r", "r.id", "j.run_id")
    .whereNull("r.finished_at")
    .where("j.status", "queued")
    .select("j.id", "j.social_account_id", "r.run_key", "j.attempts");
  for (const j of jobs) await send(j.id, syncJobKey(j.run_key, j.social_account_id, j.attempts));
  return jobs.length;
}

/**
 * The pg-boss singleton key of an account's job: `{run}:{account}` when it is first sent,
 * `{run}:{account}:{n}` when it is sent again after `n` claims whose worker died. The dead worker's pg-boss
 * job stays `active` until pg-boss expires it (QUEUE_RETRY_AFTER_SECONDS, an hour by default), and the
 * queue's `exclusive` policy would drop a second job with the same key until then; our own claim keeps the
 * read single either way.
 */
export function syncJobKey(runKey: string, accountId: string, attempts = 0): string {
  return attempts > 0 ? `${runKey}:${accountId}:${attempts}` : `${runKey}:${accountId}`;
}

/** A claimed account job: the claim's attempt number is its fence (a job taken over is no longer ours). */
export interface SyncJobClaim {
  id: string;
  run_id: string;
  social_account_id: string;
  network: string;
  attempts: number;
}

/**
 * Claims the queued job `jobId` for this worker: `running`, one more attempt, a lease of
 * WORKER_LEASE_SECONDS from now. @returns the claim, or undefined when the job is not queued.
 */
export async function claimSyncJob(app: AppContext, jobId: string): Promise<SyncJobClaim | undefined> {
  const now = app.clock.now();
  const [claim] = await app
    .db("analytics_sync_jobs")
    .where({ id: jobId, status: "queued" })
    .update({
      status: "running",
      attempts: app.db.raw("attempts + 1"),
      lease_expires_at: new Date(now.getTime() + app.config.worker.leaseSeconds * 1000),
      updated_at: now,
    })
    .returning(["id", "run_id", "social_account_id", "network", "attempts"]);
  return claim;
}

/**
 * Runs the job `jobId` if it is queued: claims it, reads its account under a lease extended every third of
 * WORKER_LEASE_SECONDS, and records how it ended on the job and the run.
 * @returns the outcome, or undefined when the job was not queued (taken, or ended).
 */
export async function runSyncJob(
  app: AppContext,
  jobId: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<AccountOutcome | undefined> {
  const leaseSeconds = app.config.worker.leaseSeconds;
  const leaseEnd = () => new Date(app.clock.now().getTime() + leaseSeconds * 1000);
  const claim = await claimSyncJob(app, jobId);
  if (!claim) return undefined;
  const mine = { id: claim.id, status: "running", attempts: claim.attempts };
  const run: SyncRun = await app.db("analytics_sync_runs").where({ id: claim.run_id }).first();
  const counts: NetworkSyncCounts = {
    accounts_synced: 0,
    accounts_failed: 0,
    posts_synced: 0,
    posts_failed: 0,
  };
  const renew = setInterval(
    () => {
      app
        .db("analytics_sync_jobs")
        .where(mine)
        .update({ lease_expires_at: leaseEnd() })
        .catch((err) => app.log.warn({ errName: (err as Error)?.name }, "analytics sync lease not extended"));
    },
    (leaseSeconds * 1000) / 3,
  );
  renew.unref();
  let outcome: AccountOutcome = "skipped";
  try {
    const [row] = await accountRows(app, [claim.social_account_id]);
    if (row) {
      const at = new Date(run.synced_at);
      const posts = await deliveryRows(app, row.social_account_id, at);
      // An app the network stopped (another job read its answer) is not called until then.
      const live = row.mode === "live";
      // Before every call: the app's stop (recorded by any job on any worker), then YouTube's quota unit.
      const network = row.network;
      const charge = live
        ? async () =>
            (await appStopRecord(app, network)) ??
            (network === "youtube" ? await chargeYouTubeUnit(app) : undefined)
        : undefined;
      const pacer = networkPacer(NETWORK_RULES[row.network].label, {
        pauseMs: app.config.analytics.syncPauseMs,
        maxWaitSeconds: app.config.analytics.syncMaxWaitSeconds,
        signal: options.signal,
        now: () => app.clock.now(),
        stopped: live ? await appStop(app, row.network) : undefined,
        charge,
        // The app's budget spent (a 429 or a usage header): every other job of the app stops from now on.
        onStop: async (stop) => {
          if (stop.scope === "app") await recordAppStop(app, network, stop);
        },
      });
      const accountReadBefore = await accountReadAt(app, row.social_account_id, at);
      outcome = await syncAccount(app, { row, posts, pacer, counts, at, accountReadBefore }, options.signal);
      if (pacer.stop?.scope === "app") await recordAppStop(app, row.network, pacer.stop);
    }
  } catch (err) {
    // Not a network answer (the database, a token that cannot be opened): this account only.
    app.log.error(
      { social_account_id: claim.social_account_id, err: { name: (err as Error)?.name } },
      "analytics sync: account failed",
    );
    outcome = "failed";
  } finally {
    clearInterval(renew);
  }
  await endSyncJob(app, mine, claim.run_id, outcome, counts);
  return outcome;
}

/** Ends the job `mine` (still held) as `outcome`, counting it on its run; finishes the run when all ended. */
async function endSyncJob(
  app: AppContext,
  mine: { id: string; status: string; attempts: number },
  runId: string,
  outcome: AccountOutcome,
  counts: NetworkSyncCounts | null,
): Promise<boolean> {
  const now = app.clock.now();
  return app.db.transaction(async (trx) => {
    const n = await trx("analytics_sync_jobs")
      .where(mine)
      .update({
        status: outcome,
        lease_expires_at: null,
        counts: counts && JSON.stringify(counts),
        updated_at: now,
      });
    if (n === 0) return false;
    const column = { done: "accounts_done", failed: "accounts_failed", skipped: "accounts_skipped" }[outcome];
    await trx("analytics_sync_runs")
      .where({ id: runId })
      .update({ [column]: trx.raw("?? + 1", [column]), updated_at: now });
    await trx("analytics_sync_runs")
      .where({ id: runId })
      .whereNull("finished_at")
      .whereRaw("accounts_done + accounts_failed + accounts_skipped >= accounts_planned")
      .update({ finished_at: now });
    return true;
  });
}

/**
 * Jobs whose lease ran out lost their worker: queued again for another worker (their deliveries already
 * read by the run stay read), or failed after MAX_SYNC_ATTEMPTS claims. Each move is conditional, so
 * concurrent reapers never both take a job. @returns the ids queued again.
 */
export async function requeueExpiredSyncJobs(app: AppContext): Promise<string[]> {
  const now = app.clock.now();
  const expired: Array<{ id: string; run_id: string; attempts: number }> = await app
    .db("analytics_sync_jobs")
    .where({ status: "running" })
    .where("lease_expires_at", "<", now)
    .select("id", "run_id", "attempts")
    .limit(500);
  const requeued: string[] = [];
  for (const job of expired) {
    const mine = { id: job.id, status: "running", attempts: job.attempts };
    if (job.attempts >= MAX_SYNC_ATTEMPTS) {
      await endSyncJob(app, mine, job.run_id, "failed", null);
      continue;
    }
    const n = await app
      .db("analytics_sync_jobs")
      .where(mine)
      .where("lease_expires_at", "<", now)
      .update({ status: "queued", lease_expires_at: null, updated_at: now });
    if (n > 0) requeued.push(job.id);
  }
  if (expired.length > 0) app.log.warn({ requeued: requeued.length }, "analytics sync jobs taken over");
  return requeued;
}

/** Works through the queued jobs of run `runId` in this process until none is left queued. */
export async function drainSyncRun(
  app: AppContext,
  runId: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<void> {
  for (;;) {
    const jobs: Array<{ id: string }> = await app
      .db("analytics_sync_jobs")
      .where({ run_id: runId, status: "queued" })
      .select("id")
      .orderBy("social_account_id");
    if (jobs.length === 0) return;
    for (const j of jobs) {
      options.signal?.throwIfAborted();
      await runSyncJob(app, j.id, options);
    }
  }
}

/** The run `runKey`, or the latest run when omitted; undefined when there is none. */
export async function syncRunStatus(app: AppContext, runKey?: string): Promise<SyncRun | undefined> {
  const q = app.db("analytics_sync_runs");
  if (runKey) q.where({ run_key: runKey });
  return q.orderBy("created_at", "desc").first();
}

/**
 * `admin analytics sync --now`: refreshes expiring tokens, plans a run keyed `now-{ISO time}` and works
 * through it here.
 * @param options.signal aborts waits and network calls.
 * @returns the counts per network of the jobs this run ended, and the run's time.
 */
export async function syncAnalytics(
  app: AppContext,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<SyncReport> {
  await refreshExpiringTokens(app);
  const at = app.clock.now();
  const { run } = await planSyncRun(app, `now-${at.toISOString()}`, at);
  await drainSyncRun(app, run.id, options);
  const report: SyncReport = { synced_at: at.toISOString(), networks: {} };
  const jobs: Array<{ network: Network; counts: NetworkSyncCounts | null }> = await app
    .db("analytics_sync_jobs")
    .where({ run_id: run.id })
    .select("network", "counts");
  for (const j of jobs) {
    const sum = report.networks[j.network] ?? {
      accounts_synced: 0,
      accounts_failed: 0,
      posts_synced: 0,
      posts_failed: 0,
    };
    report.networks[j.network] = sum;
    for (const k of Object.keys(sum) as Array<keyof NetworkSyncCounts>) sum[k] += j.counts?.[k] ?? 0;
  }
  app.log.info({ synced_at: report.synced_at, networks: report.networks }, "analytics sync finished");
  return report;
}
