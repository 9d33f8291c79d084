/**
 * Automation runs whose worker died (src/domain/automations/crashed-runs.ts; service spec 3.1 rule 4): the
 * maintenance pass finds `running` runs whose lease ran out and ends them `failed`, saying what they may
 * have created, with the carousel run they own; credits come back only under the existing rules (a video
 * run that stored no video; a carousel run that never started), once. Runs still under their lease, and
 * runs without one, are left alone. (test/scale/crash.test.ts proves it with a SIGKILLed worker process.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import { startTestApp } from "../helpers/app.ts";
import { textPost } from "../tools/carousels/fixtures.ts";

const app = await startTestApp({ queue: false });
const db = app.ctx.db;
const me = await app.user();
const mine = { user_id: me.user_id, workspace_id: me.workspace_id };
const [automation] = await db("automations")
  .insert({ ...mine, kind: "video", name: "Daily", configuration: JSON.stringify({}) })
  .returning("id");
const expired = () => new Date(app.ctx.clock.now().getTime() - 1000);

/** A `running` run of `kind` charged `credits`, with the lease `lease` (expired unless told). */
async function run(kind: "video" | "carousel", credits: number, fields: Record<string, unknown> = {}) {
  const [r] = await db("automation_runs")
    .insert({
      ...mine,
      automation_id: automation.id,
      kind,
      trigger: "schedule",
      status: "running",
      credits_charged: credits,
      started_at: new Date(),
      lease_expires_at: expired(),
      ...fields,
    })
    .returning("id");
  await db("credit_ledger").insert({
    ...mine,
    delta: -credits,
    reason: "charge:run_automation",
    reference_id: r.id,
  });
  return r.id as string;
}

/** A carousel post with a generate run in `status` (no render lease) and slides in `slides`' statuses. */
async function carousel(status: "queued" | "running", slides: string[], credits: number) {
  const postId = await textPost(app, me, "Automation carousel");
  await db("posts").where({ id: postId }).update({ type: "carousel", status: "draft" });
  const [c] = await db("carousel_runs")
    .insert({
      ...mine,
      post_id: postId,
      design_id: "bold-minimal",
      slide_count: slides.length,
      kind: "generate",
      status,
      credits_charged: credits,
    })
    .returning("id");
  for (const [i, s] of slides.entries())
    await db("carousel_slides").insert({ post_id: postId, run_id: c.id, position: i + 1, status: s });
  return { postId, carouselRunId: c.id as string };
}

const refunds = (referenceId: string) =>
  db("credit_ledger").where({ reference_id: referenceId }).where("delta", ">", 0).select("delta", "reason");
const runRow = (id: string) => db("automation_runs").where({ id }).first();

test("maintenance ends crashed runs failed with what they may have created; refunds only under the existing rules, once", async () => {
  const noVideo = await run("video", 20);
  const withVideo = await run("video", 10);
  const kept = await textPost(app, me, "The stored video's post");
  await db("posts").where({ id: kept }).update({ type: "video", automation_run_id: withVideo });
  const started = await carousel("running", ["ready", "generating", "pending"], 15);
  const startedRun = await run("carousel", 15, { post_id: started.postId });
  const unstarted = await carousel("queued", ["pending", "pending"], 10);
  const unstartedRun = await run("carousel", 10, { post_id: unstarted.postId });
  const alive = await run("video", 5, { lease_expires_at: new Date(Date.now() + 60_000) });
  const legacy = await run("video", 5, { lease_expires_at: null });

  const report = await runMaintenance(app.ctx);
  assert.equal(report.automationRunsFailed, 4);

  const a = await runRow(noVideo);
  assert.equal(a.status, "failed");
  assert.match(
    a.error,
    /worker running this automation run stopped.*no video was stored and the 20 credits were refunded/,
  );
  assert.deepEqual(await refunds(noVideo), [{ delta: 20, reason: "refund:run_automation" }]);

  const b = await runRow(withVideo);
  assert.equal(b.status, "failed");
  assert.equal(b.post_id, kept);
  assert.match(
    b.error,
    /after its video was stored: the post .* is kept as a draft and was not published; nothing was refunded/,
  );
  assert.deepEqual(await refunds(withVideo), []);

  const c = await runRow(startedRun);
  assert.equal(c.status, "failed");
  assert.match(c.error, /1 slides are ready and kept, the others failed \(retry_carousel/);
  const cRun = await db("carousel_runs").where({ id: started.carouselRunId }).first("status");
  assert.equal(cRun.status, "failed", "the carousel run it owns ends with it");
  const slides = await db("carousel_slides")
    .where({ post_id: started.postId })
    .orderBy("position")
    .select("status");
  assert.deepEqual(
    slides.map((s: { status: string }) => s.status),
    ["ready", "failed", "failed"],
  );
  assert.deepEqual(await refunds(startedRun), []);
  assert.deepEqual(await refunds(started.carouselRunId), [], "a started carousel run is never refunded");

  const d = await runRow(unstartedRun);
  assert.equal(d.status, "failed");
  assert.match(d.error, /before its carousel .* started; the 10 credits were refunded/);
  assert.deepEqual(await refunds(unstarted.carouselRunId), [{ delta: 10, reason: "refund:carousel_run" }]);

  assert.equal((await runRow(alive)).status, "running", "still under its lease");
  assert.equal((await runRow(legacy)).status, "running", "no lease: not judged");

  assert.equal((await runMaintenance(app.ctx)).automationRunsFailed, 0, "a second pass changes nothing");
  assert.equal((await refunds(noVideo)).length, 1);
});
