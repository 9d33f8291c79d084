/**
 * Automations at daily configured times (service spec 8): one native `schedule` run per (automation, slot),
 * idempotent across concurrent and repeated passes, charged like a manual run, a failed run record on
 * insufficient credits, nothing for drafts, slots before enabling or beyond the catch-up window.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createAutomation } from "../../src/domain/automations/automations.ts";
import { runDueAutomations } from "../../src/domain/automations/schedule.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { ManualClock, startTestApp } from "../helpers/app.ts";
import { balance, product, setBalance } from "../tools/carousels/fixtures.ts";

const clock = new ManualClock("2026-06-01T12:58:00Z");
const app = await startTestApp({ queue: false, clock });
const me = await app.user({ plan: "pro" });
await grantCredits(app.ctx.db, me.user_id, 1000, "test:grant");
const poor = await app.user({ plan: "pro" });
const productId = await product(app, me);
const poorProduct = await product(app, poor);

type Who = typeof me;

/**
 * A carousel automation of four slides (20 credits a run: 5 per generated image) of `who`, enabled unless
 * `status` says otherwise. Scheduling is the same for both kinds (service spec 8); a carousel is the cheaper
 * real run (four local images and slides, about 1 CPU-second, against about 4 for a 1080x1920 video).
 * Scheduled video runs: test/operations/worker.scheduledJobs.test.ts, suspension.holdInactiveWork.test.ts.
 */
async function automation(who: Who, times: string[], status = "enabled", productOf = productId) {
  const view = await app.ctx.db.transaction((trx) =>
    createAutomation(
      trx,
      { userId: who.user_id, workspaceId: who.workspace_id },
      {
        kind: "carousel",
        name: `Daily ${times.join(" ")}`,
        configuration: { product_id: productOf, design_id: "bold-minimal", slide_count: 4 },
        daily_times: times,
        time_zone: "America/New_York",
      },
      clock.now(),
    ),
  );
  if (status !== "draft")
    await app.ctx.db("automations").where({ id: view.automation_id }).update({ status });
  return view.automation_id;
}

const runsOf = (automationId: string) =>
  app.ctx.db("automation_runs").where({ automation_id: automationId }).orderBy("scheduled_slot");

test("a slot runs once at its time as a native schedule run, charged like a manual run", async () => {
  const id = await automation(me, ["09:00"]); // 13:00Z in June
  const first = await runDueAutomations(app.ctx); // sets the watermark
  assert.equal(first.due, 0);
  const before = await balance(app, me);
  clock.set("2026-06-01T13:00:30Z");
  const pass = await runDueAutomations(app.ctx);
  assert.deepEqual({ due: pass.due, started: pass.started }, { due: 1, started: 1 });
  const [run, ...more] = await runsOf(id);
  assert.equal(more.length, 0);
  assert.equal(run.trigger, "schedule");
  assert.equal(new Date(run.scheduled_slot).toISOString(), "2026-06-01T13:00:00.000Z");
  assert.equal(run.status, "succeeded");
  assert.equal(run.credits_charged, 20);
  assert.equal(before - (await balance(app, me)), 20);
  assert.ok(run.post_id, "the run produced its post");

  clock.set("2026-06-01T13:00:40Z");
  assert.equal((await runDueAutomations(app.ctx)).due, 0);
  // Even a pass that looks at the same window again (watermark lost) does not start it twice.
  await app.ctx.db("scheduler_passes").delete();
  clock.set("2026-06-01T13:01:00Z");
  const again = await runDueAutomations(app.ctx);
  assert.deepEqual(
    { due: again.due, started: again.started, already: again.already_ran },
    {
      due: 1,
      started: 0,
      already: 1,
    },
  );
  assert.equal((await runsOf(id)).length, 1);
  assert.equal(before - (await balance(app, me)), 20);
});

test("concurrent passes on several workers start exactly one run per slot", async () => {
  const ids = [await automation(me, ["09:30"]), await automation(me, ["09:30", "09:31"])];
  const before = await balance(app, me);
  clock.set("2026-06-01T13:31:10Z");
  const passes = await Promise.all([1, 2, 3].map(() => runDueAutomations(app.ctx)));
  assert.equal(
    passes.reduce((n, p) => n + p.started, 0),
    3,
  );
  const counts = await Promise.all(ids.map(async (id) => (await runsOf(id)).length));
  assert.deepEqual(counts, [1, 2]);
  // Each run rendered its slides (a failed run is refunded, which the balance below would show).
  for (const id of ids)
    for (const run of await runsOf(id)) assert.equal(run.status, "succeeded", `run ${run.id}: ${run.error}`);
  assert.equal(before - (await balance(app, me)), 60);
  const slots = (await runsOf(ids[1]!)).map((r) => new Date(r.scheduled_slot).toISOString());
  assert.deepEqual(slots, ["2026-06-01T13:30:00.000Z", "2026-06-01T13:31:00.000Z"]);
});

test("insufficient credits -> a failed schedule run record, nothing charged, no crash, once", async () => {
  await setBalance(app, poor, 5);
  const id = await automation(poor, ["10:00"], "enabled", poorProduct); // 14:00Z
  clock.set("2026-06-01T14:00:05Z");
  const pass = await runDueAutomations(app.ctx);
  assert.equal(pass.refused, 1);
  assert.equal(pass.errors, 0);
  const [run, ...more] = await runsOf(id);
  assert.equal(more.length, 0);
  assert.equal(run.trigger, "schedule");
  assert.equal(run.status, "failed");
  assert.equal(run.credits_charged, 0);
  assert.match(run.error, /insufficient credits/);
  assert.equal(await balance(app, poor), 5);
  await app.ctx.db("scheduler_passes").delete();
  clock.set("2026-06-01T14:00:30Z");
  const again = await runDueAutomations(app.ctx);
  assert.equal(again.already_ran, 1);
  assert.equal((await runsOf(id)).length, 1);
});

test("drafts, disabled automations and slots before enabling do not run; catch-up stops at one hour", async () => {
  const draft = await automation(me, ["11:00", "13:45"], "draft");
  const disabled = await automation(me, ["13:45"], "disabled");
  clock.set("2026-06-01T15:20:00Z");
  await runDueAutomations(app.ctx);
  // Enabled after its 11:00 (15:00Z) slot: that slot is not run.
  const late = await automation(me, ["11:00", "12:30", "13:45"]);
  clock.set("2026-06-01T15:21:00Z");
  assert.equal((await runDueAutomations(app.ctx)).due, 0);
  // Workers down from 15:21Z to 18:00Z: 12:30 (16:30Z) is older than an hour, 13:45 (17:45Z) runs late.
  clock.set("2026-06-01T18:00:00Z");
  const pass = await runDueAutomations(app.ctx);
  assert.equal(pass.after, "2026-06-01T17:00:00.000Z");
  assert.deepEqual(
    (await runsOf(late)).map((r) => new Date(r.scheduled_slot).toISOString()),
    ["2026-06-01T17:45:00.000Z"],
  );
  assert.equal((await runsOf(draft)).length, 0);
  assert.equal((await runsOf(disabled)).length, 0);
});
