/**
 * Carousel render jobs (service spec 3.1 rules 2 and 4; docs/operations.md "Carousel render jobs"): the
 * generate_carousel operation hands its run to the render queue and succeeds with the post and run ids; the
 * render runs under its own lease. A renderer that loses its lease (its worker was taken for dead) stops, and
 * the next one continues from the slides already ready: no finished slide redone, credits charged once.
 * The process-level proof (SIGKILL of a real worker mid-render) is test/scale/crash.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { processCarouselRender, reapExpiredRenders } from "../../src/operations/render.ts";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import {
  claimRender,
  extendRenderLease,
  MAX_RENDER_ATTEMPTS,
} from "../../src/domain/carousels/render-job.ts";
import { localImageProvider } from "../../src/providers/ai-image/local.ts";
import type { ImageProvider } from "../../src/providers/ai-image/types.ts";
import { handler as generate } from "../../src/tools/carousels/generate_carousel.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { balance, product, toolContext } from "../tools/carousels/fixtures.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { key, waitFor } from "./helpers.ts";

/** Counts images per slide position; hangs (until aborted) on `hang.position` while `hang.on`. */
const calls = new Map<number, number>();
const hang = { on: false, position: 3 };
const local = localImageProvider();
const image: ImageProvider = {
  name: "counting",
  async generate(req, signal) {
    const position = Number(req.seed.split(":")[1]);
    calls.set(position, (calls.get(position) ?? 0) + 1);
    if (hang.on && position === hang.position)
      return new Promise((_resolve, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason));
      });
    return local.generate(req, signal);
  },
};

/**
 * The render lease, in seconds. A heartbeat comes every third of it, and one that comes after the lease ran
 * out finds it lost: the renders here draw slides in this process (satori and resvg hold its event loop while
 * they draw), so on a loaded machine a 3 s lease was lost by a render nothing paused. 12 s leaves 8 s of
 * stall; the takeovers below move the test clock instead of waiting.
 */
const LEASE = 12;
const clock = new TestClock();
const app = await startTestApp({
  queue: false,
  clock,
  providers: { image },
  env: { WORKER_LEASE_SECONDS: String(LEASE) },
});
const me = await app.user();
await grantCredits(app.ctx.db, me.user_id, 500, "test:grant");

/** generate_carousel as the pipeline and the worker run it: accept, then the operation's execute. */
async function generated() {
  const input = {
    product_id: await product(app, me),
    slide_count: 4 as const,
    design_id: "bold-minimal",
    idempotency_key: key(),
  };
  const accepted = await app.ctx.db.transaction((trx) => generate.accept(input, toolContext(app, me, trx)));
  const result = await generate.execute(input, toolContext(app, me), accepted.data);
  return { ...accepted.data, result: result.data, credits: accepted.credits_charged };
}

const slides = (postId: string) =>
  app.ctx.db("carousel_slides").where({ post_id: postId }).orderBy("position");

test("the operation succeeds at once with the post and run ids; the render job draws the slides", async () => {
  const g = await generated();
  assert.deepEqual(g.result, { post_id: g.post_id, run_id: g.run_id, status: "queued" });
  assert.ok((await slides(g.post_id)).every((s: { status: string }) => s.status === "pending"));
  const [a, b] = await Promise.all([
    processCarouselRender(app.ctx, g.run_id),
    processCarouselRender(app.ctx, g.run_id),
  ]);
  assert.deepEqual([a.claimed, b.claimed].sort(), [false, true], "a duplicate job finds nothing to claim");
  const run = await app.ctx.db("carousel_runs").where({ id: g.run_id }).first();
  assert.equal(run.status, "succeeded");
  assert.equal(run.render_attempts, 1);
  assert.equal(run.lease_expires_at, null, "the lease ends with the render");
});

test("a render whose lease ran out is taken over and finished from its checkpoints, each slide once", async (t) => {
  calls.clear();
  const before = await balance(app, me);
  const g = await generated();
  assert.equal(before - (await balance(app, me)), g.credits);
  hang.on = true;
  t.after(() => {
    hang.on = false; // a failure below must not leave the next tests' renders hanging
  });
  const first = processCarouselRender(app.ctx, g.run_id);
  // The slides are drawn at once (AI_IMAGE_CONCURRENCY 4): three done and checkpointed while the third
  // is still being drawn; then the worker is taken for dead (its lease is past).
  await waitFor(
    () => slides(g.post_id),
    (rows) => rows.filter((s: { status: string }) => s.status === "ready").length === 3,
  );
  await waitFor(
    async () => calls.get(3) ?? 0,
    (n) => n === 1,
  );
  clock.advance(LEASE * 3);
  assert.deepEqual(await reapExpiredRenders(app.ctx), { requeued: [g.run_id], failed: [] });
  assert.equal((await app.ctx.db("carousel_runs").where({ id: g.run_id }).first()).status, "queued");
  // The paused renderer's next heartbeat finds the run taken: it stops without touching the slides.
  assert.equal((await first).claimed, true);
  const readyBefore = (await slides(g.post_id)).filter((s: { status: string }) => s.status === "ready");
  assert.deepEqual(
    readyBefore.map((s: { position: number }) => s.position),
    [1, 2, 4],
    "the slides that finished are checkpointed while another hangs",
  );

  hang.on = false;
  assert.deepEqual(await processCarouselRender(app.ctx, g.run_id), { claimed: true, status: "succeeded" });
  const after = await slides(g.post_id);
  assert.ok(after.every((s: { status: string }) => s.status === "ready"));
  for (const s of readyBefore)
    assert.equal(after.find((x: { id: string }) => x.id === s.id).image_asset_id, s.image_asset_id);
  assert.deepEqual(
    [1, 2, 3, 4].map((p) => calls.get(p)),
    [1, 1, 2, 1],
    "finished slides are never drawn again; only the interrupted one is",
  );
  const stored = await app.ctx
    .db("media_assets")
    .whereIn(
      "id",
      after.map((s: { image_asset_id: string }) => s.image_asset_id),
    )
    .count<{ n: string }[]>({ n: "*" });
  assert.equal(Number(stored[0]!.n), 4);
  assert.equal(before - (await balance(app, me)), g.credits, "credits charged once, at the call");
  const run = await app.ctx.db("carousel_runs").where({ id: g.run_id }).first();
  assert.equal(run.render_attempts, 2);
});

test(`a render that stops its worker ${MAX_RENDER_ATTEMPTS} times is failed, its unfinished slides left for retry`, async () => {
  const g = await generated();
  await app.ctx
    .db("carousel_runs")
    .where({ id: g.run_id })
    .update({
      status: "running",
      render_attempts: MAX_RENDER_ATTEMPTS,
      lease_expires_at: new Date(clock.now().getTime() - 1000),
    });
  assert.deepEqual(await reapExpiredRenders(app.ctx), { requeued: [], failed: [g.run_id] });
  const run = await app.ctx.db("carousel_runs").where({ id: g.run_id }).first();
  assert.equal(run.status, "failed");
  assert.match(run.error, /retry_carousel/);
  assert.ok((await slides(g.post_id)).every((s: { status: string }) => s.status === "failed"));
});

test("maintenance sends again the render job of a run handed over long ago and still waiting", async () => {
  const g = await generated();
  const sent: string[] = [];
  app.ctx.queue = {
    dispatch: async () => "job",
    dispatchRender: async (runId) => {
      sent.push(runId);
      return "job";
    },
  };
  try {
    assert.equal((await runMaintenance(app.ctx)).rendersRedispatched, 0, "not yet stranded");
    clock.advance(11 * 60);
    const report = await runMaintenance(app.ctx);
    assert.ok(report.rendersRedispatched >= 1);
    assert.ok(sent.includes(g.run_id));
  } finally {
    app.ctx.queue = undefined;
  }
  assert.deepEqual(await processCarouselRender(app.ctx, g.run_id), { claimed: true, status: "succeeded" });
});

test("a lease is extended while it lasts; once past its end its holder cannot revive it, reaped or not", async () => {
  const g = await generated();
  // The moments are given, not read from the clock (which moves with real time: a loaded machine would
  // stretch the gaps).
  const at = (t: Date, seconds: number) => new Date(t.getTime() + seconds * 1000);
  const claimed = clock.now();
  const claim = await claimRender(app.ctx.db, g.run_id, claimed, LEASE);
  assert.ok(claim);
  const leaseEnd = async () =>
    (await app.ctx.db("carousel_runs").where({ id: g.run_id }).first("lease_expires_at")).lease_expires_at;
  const beat = at(claimed, LEASE - 1);
  assert.equal(await extendRenderLease(app.ctx.db, claim, beat, LEASE), true);
  assert.equal((await leaseEnd()).getTime(), at(beat, LEASE).getTime(), "extended from the heartbeat");
  // The heartbeat comes late (a paused worker): the lease has run out, the reaper has not run yet.
  const late = at(beat, LEASE + 1);
  const ended = await leaseEnd();
  assert.equal(await extendRenderLease(app.ctx.db, claim, late, LEASE), false);
  assert.equal((await leaseEnd()).getTime(), ended.getTime(), "the lease stays run out");
  clock.advance(2 * LEASE + 1);
  assert.deepEqual(await reapExpiredRenders(app.ctx), { requeued: [g.run_id], failed: [] });
  assert.deepEqual(await processCarouselRender(app.ctx, g.run_id), { claimed: true, status: "succeeded" });
});
