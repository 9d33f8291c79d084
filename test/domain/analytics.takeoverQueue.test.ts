/**
 * A sync job whose worker died, through the real pg-boss queue (src/domain/analytics/sync.ts `syncJobKey`,
 * src/operations/boss.ts): the dead worker's pg-boss job stays `active` until pg-boss expires it (an hour),
 * and the account queue's `exclusive` policy drops a second job with the same singleton key while it does.
 * When the job's own lease runs out it is sent again under `{night}:{account}:{claims}`, so a live worker
 * takes it at once instead of the run waiting for pg-boss (or, before, for the next worker start), and it is
 * read once.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import {
  claimSyncJob,
  requeueExpiredSyncJobs,
  resumeSyncRuns,
  runSyncJob,
  startNightlyRun,
} from "../../src/domain/analytics/sync.ts";
import { ANALYTICS_ACCOUNT_QUEUE, BOSS_SCHEMA, createBoss, ensureQueues } from "../../src/operations/boss.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { account } from "../tools/carousels/fixtures.ts";

const clock = new TestClock();
const app = await startTestApp({ clock });
const me = await app.user({ plan: "pro" });
const accountId = await account(app, me, "x", "Takeover X");
const boss = createBoss(app.ctx, "producer");
await boss.start();
await ensureQueues(app.ctx, boss);
after(() => boss.stop({ graceful: false, close: true }));

const send = (jobId: string, singletonKey: string) =>
  boss.send(ANALYTICS_ACCOUNT_QUEUE, { sync_job_id: jobId }, { singletonKey });

const bossJobs = async () =>
  (
    await app.ctx.db.raw(
      `select singleton_key, state from ${BOSS_SCHEMA}.job where name = ? order by created_on`,
      [ANALYTICS_ACCOUNT_QUEUE],
    )
  ).rows as Array<{ singleton_key: string; state: string }>;

test("a dead worker's job is sent again under a new key when its lease runs out, and read once", async () => {
  const run = await startNightlyRun(app.ctx, send);
  const key = `${run.run_key}:${accountId}`;
  assert.deepEqual(await bossJobs(), [{ singleton_key: key, state: "created" }]);

  // A worker fetches the pg-boss job, claims our job, and dies: both stay as they are.
  const [fetched] = await boss.fetch<{ sync_job_id: string }>(ANALYTICS_ACCOUNT_QUEUE);
  assert.ok(fetched);
  const jobId = fetched.data.sync_job_id;
  assert.ok(await claimSyncJob(app.ctx, jobId));
  assert.deepEqual(await bossJobs(), [{ singleton_key: key, state: "active" }]);

  // The same key would be dropped while the dead worker's job is active.
  assert.equal(await send(jobId, key), null, "exclusive: one waiting or active job per key");

  // The lease runs out: the reaper queues the job again and sends it under the claim count.
  clock.advance(app.ctx.config.worker.leaseSeconds + 1);
  assert.deepEqual(await requeueExpiredSyncJobs(app.ctx), [jobId]);
  assert.equal(await resumeSyncRuns(app.ctx, send), 1);
  assert.deepEqual(await bossJobs(), [
    { singleton_key: key, state: "active" },
    { singleton_key: `${key}:1`, state: "created" },
  ]);

  // A live worker takes it and reads the account; the run finishes.
  const [again] = await boss.fetch<{ sync_job_id: string }>(ANALYTICS_ACCOUNT_QUEUE);
  assert.equal(again?.data.sync_job_id, jobId);
  assert.equal(await runSyncJob(app.ctx, jobId), "done");
  const job = await app.ctx.db("analytics_sync_jobs").where({ id: jobId }).first();
  assert.deepEqual([job.status, job.attempts], ["done", 2]);
  const finished = await app.ctx.db("analytics_sync_runs").where({ id: run.id }).first();
  assert.ok(finished.finished_at, "the run finished without waiting for pg-boss's expiry");
});
