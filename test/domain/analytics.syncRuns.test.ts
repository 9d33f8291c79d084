/**
 * The metrics sync as queued work (docs/analytics.md "Runs"; src/domain/analytics/sync.ts): the nightly run
 * plans one job per account with the singleton key `{night}:{account}`; two workers share the jobs and each
 * account is read once; a worker that dies holding a job loses it when its lease runs out and another worker
 * takes it over without re-reading the account's counters or the deliveries already read; a restart of the
 * night continues the same run and never reads an account already done; `admin analytics sync --status`
 * prints the progress. Sandbox accounts (the sandbox connector's labelled numbers) stand in for the networks
 * here: the batching against the networks' fakes is test/domain/analytics.batchedReads.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runAdmin } from "../../src/cli/admin.ts";
import { saveAccountCounters, savePostCounters } from "../../src/domain/analytics/saved-metrics.ts";
import {
  claimSyncJob,
  nightKey,
  requeueExpiredSyncJobs,
  runSyncJob,
  startNightlyRun,
} from "../../src/domain/analytics/sync.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { account } from "../tools/carousels/fixtures.ts";

const clock = new TestClock();
const app = await startTestApp({ clock });
const me = await app.user({ plan: "pro" });
const db = app.ctx.db;

const NETWORKS = ["youtube", "x", "instagram", "facebook", "tiktok", "linkedin", "pinterest"] as const;
const accounts: string[] = [];
for (const [i, n] of [...NETWORKS, ...NETWORKS].entries()) accounts.push(await account(app, me, n, `A${i}`));

/** Two published deliveries per account; their ids by account. */
const deliveriesOf = new Map<string, string[]>();
for (const [i, a] of accounts.entries()) {
  const ids: string[] = [];
  for (const k of [0, 1]) {
    const [post] = await db("posts")
      .insert({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        type: "text",
        status: "published",
        caption: "p",
      })
      .returning("id");
    const [d] = await db("deliveries")
      .insert({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        post_id: post.id,
        social_account_id: a,
        status: "published",
        provider_post_id: `net-${i}-${k}`,
        network_ids: JSON.stringify({}),
        published_at: new Date(Date.now() - (k + 1) * 60_000),
      })
      .returning("id");
    ids.push(d.id);
  }
  deliveriesOf.set(a, ids);
}

/** A pg-boss stand-in for the singleton keys: what was sent, in order. */
function sender() {
  const sent: Array<{ jobId: string; key: string }> = [];
  return { sent, send: async (jobId: string, key: string) => void sent.push({ jobId, key }) };
}

const jobsOf = (runId: string) =>
  db("analytics_sync_jobs").where({ run_id: runId }).orderBy("social_account_id");

test("the nightly run: one job per account keyed by night and account; two workers read each account once", async () => {
  const q = sender();
  const run = await startNightlyRun(app.ctx, q.send);
  assert.equal(run.run_key, nightKey(clock.now()));
  assert.equal(run.accounts_planned, accounts.length);
  assert.deepEqual(
    q.sent.map((s) => s.key.split(":")[1]).sort(),
    [...accounts].sort(),
    "one job per account",
  );
  assert.ok(q.sent.every((s) => s.key.startsWith(`${run.run_key}:`)));

  // Two workers take the jobs from the same queue (here: the sent list); each job is claimed once.
  const queue = [...q.sent, ...q.sent]; // every job delivered twice: the claim keeps each read single
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await runSyncJob(app.ctx, next.jobId);
  };
  await Promise.all([worker(), worker()]);
  const jobs = await jobsOf(run.id);
  assert.ok(
    jobs.every((j) => j.status === "done" && j.attempts === 1),
    JSON.stringify(jobs.map((j) => j.status)),
  );
  const status = (await runAdmin(db, ["analytics", "sync", "--status"], app.ctx)) as Record<string, unknown>;
  assert.equal(status.run_key, run.run_key);
  assert.equal(status.accounts_planned, accounts.length);
  assert.equal(status.accounts_done, accounts.length);
  assert.equal(status.accounts_failed, 0);
  assert.equal(status.accounts_skipped, 0);
  assert.ok(typeof status.finished_at === "string");
  const rows = await db("post_metrics").whereIn("delivery_id", [...deliveriesOf.values()].flat());
  assert.equal(rows.length, accounts.length * 2);
  assert.ok(rows.every((r) => new Date(r.synced_at).getTime() === new Date(run.synced_at).getTime()));

  // The worker restarts the same night: the same run, nothing sent again, nothing read again.
  const again = sender();
  const same = await startNightlyRun(app.ctx, again.send);
  assert.equal(same.id, run.id);
  assert.equal(again.sent.length, 0);
});

test("a worker that dies holding a job: its lease runs out, another worker takes it over and reads only what is left", async () => {
  clock.advance(24 * 3600); // the next night
  const q = sender();
  const run = await startNightlyRun(app.ctx, q.send);
  const victim = q.sent[0]!;
  const accountId = victim.key.split(":")[1]!;
  const [first, second] = deliveriesOf.get(accountId)!;
  // Worker 1 claims the job and reads the first delivery, then dies (no end, no release).
  const claim = await claimSyncJob(app.ctx, victim.jobId);
  assert.ok(claim);
  assert.equal(await claimSyncJob(app.ctx, victim.jobId), undefined, "held: nobody else claims it");
  const d = await db("deliveries").where({ id: first }).first();
  await savePostCounters(
    db,
    { workspace_id: d.workspace_id, user_id: d.user_id, delivery_id: first!, post_id: d.post_id },
    { views: 424_242, reach: null, likes: null, comments: null, shares: null, saves: null },
    "sandbox",
    new Date(run.synced_at),
  );
  await saveAccountCounters(
    db,
    { workspace_id: d.workspace_id, user_id: d.user_id, social_account_id: accountId },
    { followers: 777_777, views: null, likes: null, comments: null, shares: null },
    "sandbox",
    new Date(run.synced_at),
  );
  // Worker 2 delivers the job again while it is held: nothing happens.
  assert.equal(await runSyncJob(app.ctx, victim.jobId), undefined);
  assert.deepEqual(await requeueExpiredSyncJobs(app.ctx), [], "the lease is still running");
  clock.advance(app.ctx.config.worker.leaseSeconds + 1);
  assert.deepEqual(await requeueExpiredSyncJobs(app.ctx), [victim.jobId]);
  for (const s of q.sent) await runSyncJob(app.ctx, s.jobId);

  const job = await db("analytics_sync_jobs").where({ id: victim.jobId }).first();
  assert.equal(job.status, "done");
  assert.equal(job.attempts, 2);
  assert.deepEqual(job.counts, { accounts_synced: 1, accounts_failed: 0, posts_synced: 1, posts_failed: 0 });
  const account = await db("account_metrics").where({ social_account_id: accountId }).first();
  assert.equal(Number(account.followers), 777_777, "the account read before the crash is not read again");
  const kept = await db("post_metrics").where({ delivery_id: first }).first();
  assert.equal(Number(kept.views), 424_242, "the delivery read before the crash is not read again");
  const read = await db("post_metrics").where({ delivery_id: second }).first();
  assert.equal(new Date(read.synced_at).getTime(), new Date(run.synced_at).getTime());
  const after = await db("analytics_sync_runs").where({ id: run.id }).first();
  assert.equal(after.accounts_done, accounts.length);
  assert.ok(after.finished_at);
});
