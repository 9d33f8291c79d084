/**
 * The worker's scheduled jobs (service spec 6.3, 8): the per-minute scheduler (daily automation slots, due
 * post schedules) and the daily analytics sync at midnight America/New_York, which by default runs the
 * provider metrics sync of src/domain/analytics/sync.ts. Jobs are sent through real pg-boss queues.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createAutomation } from "../../src/domain/automations/automations.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import {
  ANALYTICS_ACCOUNT_QUEUE,
  ANALYTICS_SYNC_QUEUE,
  BOSS_SCHEMA,
  createBoss,
  SCHEDULER_QUEUE,
} from "../../src/operations/boss.ts";
import { startTestApp } from "../helpers/app.ts";
import { account, product } from "../tools/carousels/fixtures.ts";
import { waitFor } from "./helpers.ts";

const app = await startTestApp({ worker: true });
const me = await app.user({ plan: "pro" });
const producer = createBoss(app.ctx, "producer");
await producer.start();
after(() => producer.stop({ graceful: false, close: true }));

test("the scheduler runs every minute and the analytics sync daily at midnight in New York", async () => {
  const rows = await app.ctx.db.raw(`select name, cron, timezone from ${BOSS_SCHEMA}.schedule`);
  const byName = Object.fromEntries(rows.rows.map((r: { name: string }) => [r.name, r]));
  assert.deepEqual(
    { cron: byName[SCHEDULER_QUEUE]?.cron, tz: byName[SCHEDULER_QUEUE]?.timezone },
    { cron: "* * * * *", tz: "UTC" },
  );
  assert.deepEqual(
    { cron: byName[ANALYTICS_SYNC_QUEUE]?.cron, tz: byName[ANALYTICS_SYNC_QUEUE]?.timezone },
    { cron: "0 0 * * *", tz: "America/New_York" },
  );
});

test("an analytics-sync job saves the account's lifetime counters (no manual wiring)", async () => {
  const insta = await account(app, me, "instagram", "Shop Insta");
  assert.equal(await app.ctx.db("account_metrics").where({ social_account_id: insta }).first(), undefined);
  await producer.send(ANALYTICS_SYNC_QUEUE, {});
  const row = await waitFor(
    () => app.ctx.db("account_metrics").where({ social_account_id: insta }).first(),
    (r) => r !== undefined,
    45_000, // the daily queue is polled every 10 s
  );
  assert.equal(row.user_id, me.user_id);
  assert.ok(row.synced_at instanceof Date);
  assert.equal(row.source, "sandbox", "a sandbox account's numbers are labelled sandbox");
  // The night's run was planned and its account job went through the analytics-sync-account queue with
  // the singleton key {night}:{account}.
  const run = await waitFor(
    () => app.ctx.db("analytics_sync_runs").orderBy("created_at", "desc").first(),
    (r) => r?.finished_at != null,
    45_000,
  );
  assert.match(run.run_key, /^\d{4}-\d{2}-\d{2}$/);
  const sent = await app.ctx.db.raw(`select singleton_key from ${BOSS_SCHEMA}.job where name = ?`, [
    ANALYTICS_ACCOUNT_QUEUE,
  ]);
  assert.ok(sent.rows.some((r: { singleton_key: string }) => r.singleton_key === `${run.run_key}:${insta}`));
});

test("a scheduler job starts the run of an automation slot that just came due", async () => {
  await grantCredits(app.ctx.db, me.user_id, 100, "test:grant");
  const productId = await product(app, me);
  // Take the minute ticks out of the way (a tick between the slot and enabling would rightly skip the slot):
  // no more ticks, none pending, no watermark. The job sent below is then the only pass.
  await producer.unschedule(SCHEDULER_QUEUE);
  await waitFor(
    async () =>
      (
        await app.ctx.db.raw(
          `select count(*)::int as n from ${BOSS_SCHEMA}.job where name = ? and state in ('created', 'retry', 'active')`,
          [SCHEDULER_QUEUE],
        )
      ).rows[0].n as number,
    (n) => n === 0,
    45_000,
  );
  await app.ctx.db("scheduler_passes").delete();
  // A daily time a few seconds ago, in UTC; the first pass looks back two minutes.
  const now = app.ctx.clock.now();
  const slot = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const hhmm = slot.toISOString().slice(11, 16);
  const view = await app.ctx.db.transaction((trx) =>
    createAutomation(
      trx,
      { userId: me.user_id, workspaceId: me.workspace_id },
      {
        kind: "video",
        name: "Every day",
        configuration: { type: "fade-video", template_id: "single-fade", product_id: productId },
        daily_times: [hhmm],
        time_zone: "UTC",
      },
      now,
    ),
  );
  await app.ctx.db("automations").where({ id: view.automation_id }).update({ status: "enabled" });
  await producer.send(SCHEDULER_QUEUE, {});
  const runs = await waitFor(
    () => app.ctx.db("automation_runs").where({ automation_id: view.automation_id }),
    (r) => r.length > 0 && r.every((x: { status: string }) => x.status !== "running"),
    // The run renders a real MP4 with ffmpeg: generous for a busy 2-core machine.
    180_000,
  );
  assert.equal(runs.length, 1);
  assert.equal(runs[0].trigger, "schedule");
  assert.equal(new Date(runs[0].scheduled_slot).toISOString(), slot.toISOString());
  assert.equal(runs[0].credits_charged, 5);
});
