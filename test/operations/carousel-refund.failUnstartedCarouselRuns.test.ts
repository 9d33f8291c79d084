/**
 * A paid carousel whose queued operation ends before its run started (service spec 3.1, 8): the run is
 * failed with a reason, its credits are refunded exactly once, and retry_carousel works on it afterwards.
 * Real pipeline, real generate_carousel/retry_carousel tools, real processOperation and maintenance pass.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import { creditBalance } from "../../src/domain/account/credits.ts";
import { failUnstartedCarouselRuns } from "../../src/domain/carousels/settle.ts";
import { processOperation } from "../../src/operations/execute.ts";
import { processCarouselRender } from "../../src/operations/render.ts";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import { createRuntime } from "../../src/runtime/pipeline.ts";
import { startTestApp } from "../helpers/app.ts";
import { product } from "../tools/carousels/fixtures.ts";
import { call, connection, key } from "./helpers.ts";

const app = await startTestApp();
const rt = createRuntime(app.ctx, [
  TOOLS_BY_NAME.get("generate_carousel")!,
  TOOLS_BY_NAME.get("retry_carousel")!,
]);
const scopes = ["create:carousels", "manage:carousels", "read:jobs", "read:content"];

async function generate(who: Awaited<ReturnType<typeof app.user>>) {
  const auth = await connection(app, who, scopes);
  const env = await call(rt, auth, "generate_carousel", {
    product_id: await product(app, who),
    slide_count: 6,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  assert.equal(env.status, "queued", JSON.stringify(env));
  assert.equal(env.credits_charged, 30);
  const data = env.data as { post_id: string; run_id: string };
  return { auth, operationId: env.operation_id!, ...data };
}

const refunds = async (runId: string) =>
  app.ctx.db("credit_ledger").where({ reference_id: runId, reason: "refund:carousel_run" });

test("a queued carousel whose operation fails before it runs is failed, refunded once, and can be retried", async () => {
  const me = await app.user();
  const start = await creditBalance(app.ctx.db, me.user_id);
  const g = await generate(me);
  assert.equal(await creditBalance(app.ctx.db, me.user_id), start - 30);
  // The connection is revoked before the worker gets to it: the operation fails at the live re-check.
  await app.ctx.db("oauth_grants").where({ id: g.auth.grantId }).update({ revoked_at: new Date() });
  const r = await processOperation(app.ctx, g.operationId);
  assert.equal(r.state, "failed");
  const run = await app.ctx.db("carousel_runs").where({ id: g.run_id }).first();
  assert.equal(run.status, "failed");
  assert.match(run.error, /ended before the run started/);
  const slides = await app.ctx.db("carousel_slides").where({ run_id: g.run_id });
  assert.ok(slides.every((s: { status: string }) => s.status === "failed"));
  assert.equal(await creditBalance(app.ctx.db, me.user_id), start);
  assert.equal((await refunds(g.run_id)).length, 1);

  // Exactly once: a second claim, a direct settle and a maintenance pass refund nothing more.
  assert.equal((await processOperation(app.ctx, g.operationId)).claimed, false);
  assert.deepEqual(await failUnstartedCarouselRuns(app.ctx.db, g.operationId, "again", new Date()), []);
  await runMaintenance(app.ctx);
  await Promise.all([
    failUnstartedCarouselRuns(app.ctx.db, g.operationId, "race", new Date()),
    failUnstartedCarouselRuns(app.ctx.db, g.operationId, "race", new Date()),
  ]);
  assert.equal((await refunds(g.run_id)).length, 1);
  assert.equal(await creditBalance(app.ctx.db, me.user_id), start);

  // retry_carousel works on it: the failed slides are queued again (charged again) and generated.
  const auth = await connection(app, me, scopes);
  const retry = await call(rt, auth, "retry_carousel", { post_id: g.post_id, idempotency_key: key() });
  assert.equal(retry.status, "queued", JSON.stringify(retry));
  assert.equal(retry.credits_charged, 30);
  const done = await processOperation(app.ctx, retry.operation_id!);
  assert.equal(done.state, "succeeded", "the operation succeeds once the run is handed to the render job");
  const runId = (retry.data as { run_id: string }).run_id;
  assert.deepEqual(await processCarouselRender(app.ctx, runId), { claimed: true, status: "succeeded" });
  const retried = await app.ctx
    .db("carousel_runs")
    .where({ id: (retry.data as { run_id: string }).run_id })
    .first();
  assert.equal(retried.status, "succeeded");
  assert.equal(await creditBalance(app.ctx.db, me.user_id), start - 30);
});

test("a queued carousel whose operation became outcome_unknown before its run started is refunded by maintenance", async () => {
  const me = await app.user();
  const start = await creditBalance(app.ctx.db, me.user_id);
  const g = await generate(me);
  // The worker claimed the operation and died before it started the run; its deadline has passed.
  const past = new Date(Date.now() - 60_000);
  await app.ctx
    .db("operations")
    .where({ id: g.operationId })
    .update({ state: "running", claimed_at: past, deadline_at: past });
  const report = await runMaintenance(app.ctx);
  assert.ok(report.overdue >= 1);
  assert.equal(report.carouselRunsRefunded, 1);
  assert.equal((await app.ctx.db("carousel_runs").where({ id: g.run_id }).first()).status, "failed");
  assert.equal(await creditBalance(app.ctx.db, me.user_id), start);
  assert.equal((await runMaintenance(app.ctx)).carouselRunsRefunded, 0);
  assert.equal((await refunds(g.run_id)).length, 1);
});

test("a run that already started is neither failed nor refunded when its operation ends", async () => {
  const me = await app.user();
  const g = await generate(me);
  await app.ctx.db("carousel_runs").where({ id: g.run_id }).update({ status: "running" });
  await app.ctx.db("operations").where({ id: g.operationId }).update({ state: "outcome_unknown" });
  await runMaintenance(app.ctx);
  assert.equal((await app.ctx.db("carousel_runs").where({ id: g.run_id }).first()).status, "running");
  assert.equal((await refunds(g.run_id)).length, 0);
});

test("a run handed to the render job is rendered, not refunded, even when its operation's outcome is unknown", async () => {
  const me = await app.user();
  const g = await generate(me);
  assert.equal((await processOperation(app.ctx, g.operationId)).state, "succeeded");
  const handed = await app.ctx.db("carousel_runs").where({ id: g.run_id }).first();
  assert.equal(handed.status, "queued");
  assert.ok(handed.render_dispatched_at, "handed to the render queue");
  await app.ctx.db("operations").where({ id: g.operationId }).update({ state: "outcome_unknown" });
  assert.equal((await runMaintenance(app.ctx)).carouselRunsRefunded, 0);
  assert.equal((await refunds(g.run_id)).length, 0);
  assert.deepEqual(await processCarouselRender(app.ctx, g.run_id), { claimed: true, status: "succeeded" });
});
