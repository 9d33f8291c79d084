/**
 * Crashes (README "Running more than one instance"; docs/operations.md "Leases", "Carousel render jobs"; service
 * spec 3.1 rules 2 and 4): two workers on one database.
 * - A 6-slide carousel: generate_carousel's operation hands the run to a render job and succeeds at once; the
 *   worker rendering it is killed with SIGKILL half way. The render's lease runs out, the other worker takes
 *   the render over and finishes it from the slides already rendered: within 60 s, each slide image
 *   generated once, the credits charged once, the operation left `succeeded` (never run again).
 * - A worker killed inside a running operation (fetch_product_details waiting for a product page that does
 *   not answer): the operation becomes `outcome_unknown` once its lease runs out, and is never run again
 *   (the page is asked once).
 * - A worker killed inside an automation run (run_automation approved by the owner, its 6-slide carousel
 *   half drawn): once the run's lease runs out another worker ends it `failed` with the carousel run it
 *   owns (ready slides kept, the others failed for retry_carousel), the operation `outcome_unknown`; nothing
 *   is generated again and, as the generation had started, the credits are charged once and not refunded.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { createUser } from "../../src/domain/account/accounts.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { freshDatabase } from "../helpers/db.ts";
import { browserSession } from "../helpers/browser.ts";
import { connect } from "../helpers/tokens.ts";
import { postDecision, waitFor } from "../operations/helpers.ts";
import { type ClusterProcess, startCluster, toolCaller } from "./cluster.ts";

/** A product page that never answers (held until the test ends), counting the requests it got. */
const page = {
  requests: 0,
  held: [] as http.ServerResponse[],
  onRequest: undefined as (() => void) | undefined,
};
const pageServer = http.createServer((_req, res) => {
  page.requests += 1;
  page.held.push(res);
  page.onRequest?.();
});
await new Promise<void>((r) => pageServer.listen(0, "127.0.0.1", r));
const pagePort = (pageServer.address() as AddressInfo).port;

const LEASE_SECONDS = 6;
const database = await freshDatabase({ autoDrop: false });
const cluster = await startCluster({
  databaseUrl: database.url,
  db: database.db,
  servers: 1,
  workers: 2,
  env: {
    WORKER_LEASE_SECONDS: String(LEASE_SECONDS),
    WORKER_CONCURRENCY: "1",
    FETCH_ALLOW_LOOPBACK_PORT: String(pagePort),
  },
});
after(async () => {
  for (const res of page.held) res.destroy();
  await new Promise((r) => pageServer.close(r));
  await cluster.stop();
  await database.drop();
});

/** A user with credits and a connection with `scopes`; returns the tool caller. */
async function userWith(scopes: string[]) {
  const ids = await createUser(database.db, {
    email: `crash-${randomUUID().slice(0, 8)}@example.test`,
    password: "correct horse battery staple",
    workspace: "Crash",
    plan: "pro",
  });
  await grantCredits(database.db, ids.user_id, 100, "test:grant");
  const { token } = await connect(cluster.issuer, ids, scopes);
  return { ids, call: toolCaller(cluster, token) };
}

/** The live worker whose log shows `needle` with `message`. */
const workerLogging = (needle: string, message: string): ClusterProcess | undefined =>
  cluster.processes.find(
    (p) =>
      p.role === "worker" &&
      p.child.exitCode === null &&
      p.child.signalCode === null &&
      p.lines.some((l) => l.includes(needle) && l.includes(message)),
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("SIGKILL of the worker mid-render: the operation had succeeded; another worker finishes the render; each slide once, credits once", async () => {
  const { ids, call } = await userWith(["create:products", "read:content", "create:carousels", "read:jobs"]);
  const product = await call("create_product", {
    name: "Ceramic pour-over set",
    description: "Hand-glazed dripper and carafe for a slow, clean cup.",
    idempotency_key: randomUUID(),
  });
  const formats = await call("list_carousel_formats", {});
  const design = formats.data.designs.find((d: { slide_counts: number[] }) => d.slide_counts.includes(6));
  const started = await call("generate_carousel", {
    product_id: product.data.product_id,
    slide_count: 6,
    design_id: design.design_id,
    idempotency_key: randomUUID(),
  });
  const operationId: string = started.operation_id;
  const postId: string = started.data.post_id;
  const runId: string = started.data.run_id;
  const slides = () => database.db("carousel_slides").where({ post_id: postId });

  // Kill whichever worker renders the run as soon as some (not all) slides are ready.
  let victim: ClusterProcess | undefined;
  const deadline = Date.now() + 60_000;
  while (!victim && Date.now() < deadline) {
    const ready = (await slides()).filter((s: { status: string }) => s.status === "ready").length;
    if (ready >= 1 && ready < 6) victim = workerLogging(runId, "carousel render running");
    if (ready === 6) assert.fail("the carousel finished before the worker could be killed");
    if (!victim) await sleep(20);
  }
  assert.ok(victim, "found the worker rendering the carousel");
  victim.child.kill("SIGKILL");
  const killedAt = Date.now();
  const readyAtKill = (await slides()).filter((s: { status: string }) => s.status === "ready").length;
  assert.ok(readyAtKill < 6, "killed half way");
  const opAtKill = await database.db("operations").where({ id: operationId }).first("state", "attempts");
  assert.deepEqual(opAtKill, { state: "succeeded", attempts: 1 }, "the operation had already succeeded");
  const status = await call("get_job_status", { operation_id: operationId });
  assert.deepEqual(status.data.result, { post_id: postId, run_id: runId, status: "queued" }, "handed over");

  const run = await waitFor(
    () => database.db("carousel_runs").where({ id: runId }).first("status", "render_attempts"),
    (r) => r.status === "succeeded" || r.status === "failed",
    60_000,
  );
  const finishedWithin = (Date.now() - killedAt) / 1000;
  assert.equal(run.status, "succeeded");
  assert.ok(finishedWithin < 60, `taken over and finished within 60 s (${finishedWithin.toFixed(1)} s)`);
  assert.equal(run.render_attempts, 2, "one takeover");
  const view = await call("get_carousel", { post_id: postId });
  assert.equal(view.data.run.status, "succeeded");
  assert.ok(view.data.slides.every((s: { status: string }) => s.status === "ready"));

  const finalSlides = await slides();
  const assetIds = finalSlides.map((s: { image_asset_id: string }) => s.image_asset_id);
  assert.equal(new Set(assetIds).size, 6, "six distinct slide images");
  const generated = await database
    .db("media_assets")
    .where({ user_id: ids.user_id, source: "generated" })
    .count<{ count: string }[]>("* as count");
  assert.equal(Number(generated[0]!.count), 6, "each slide image generated (stored) once");
  const charges = await database.db("credit_ledger").where({ user_id: ids.user_id }).where("delta", "<", 0);
  assert.equal(charges.length, 1, "credits charged once");
  assert.equal(Number(charges[0].delta), -30);
  const op = await database.db("operations").where({ id: operationId }).first("state", "attempts");
  assert.deepEqual(op, { state: "succeeded", attempts: 1 }, "the operation never ran again");
});

test("SIGKILL of a worker inside a running operation: outcome_unknown, never run again", async () => {
  const { call } = await userWith(["create:products", "read:jobs"]);
  const requested = new Promise<void>((resolve) => {
    page.onRequest = resolve;
  });
  const started = await call("fetch_product_details", {
    product_url: `http://127.0.0.1:${pagePort}/product`,
    idempotency_key: randomUUID(),
  });
  const operationId: string = started.operation_id;
  await requested;
  const victim = await waitFor(
    async () => workerLogging(operationId, "operation running"),
    (p) => p !== undefined,
    10_000,
  );
  assert.ok(victim, "found the worker running the operation");
  assert.equal((await database.db("operations").where({ id: operationId }).first("state")).state, "running");
  victim.child.kill("SIGKILL");
  // The first test killed one of the two workers: a fresh one notices the dead worker's lease.
  await cluster.addWorker("worker-3");

  const op = await waitFor(
    () => database.db("operations").where({ id: operationId }).first("state", "attempts", "error_code"),
    (o) => o.state !== "running",
    60_000,
  );
  assert.deepEqual(op, { state: "outcome_unknown", attempts: 1, error_code: "outcome_unknown" });
  const status = await call("get_job_status", { operation_id: operationId });
  assert.equal(status.data.status, "outcome_unknown");
  assert.match(status.data.error.message, /inspect existing records/);
  await sleep(LEASE_SECONDS * 1000);
  assert.equal(page.requests, 1, "the handler was never run again");
  const after = await database.db("operations").where({ id: operationId }).first("state", "attempts");
  assert.deepEqual(after, { state: "outcome_unknown", attempts: 1 });
});

test("SIGKILL of the worker inside an automation run: the run and its carousel run end failed, never resumed; charged once, not refunded", async () => {
  const { ids, call } = await userWith([
    "create:products",
    "read:content",
    "create:automations",
    "manage:automations",
    "read:automations",
    "read:jobs",
  ]);
  const product = await call("create_product", {
    name: "Linen apron",
    description: "Stonewashed linen with deep pockets, made to last in a busy kitchen.",
    idempotency_key: randomUUID(),
  });
  const formats = await call("list_carousel_formats", {});
  const design = formats.data.designs.find((d: { slide_counts: number[] }) => d.slide_counts.includes(6));
  const created = await call("create_automation", {
    kind: "carousel",
    name: "Apron daily",
    configuration: { product_id: product.data.product_id, design_id: design.design_id, slide_count: 6 },
    idempotency_key: randomUUID(),
  });
  const automationId: string = created.data.automation_id;
  const requested = await call("run_automation", {
    automation_id: automationId,
    idempotency_key: randomUUID(),
  });
  assert.equal(requested.status, "approval_required");
  const operationId: string = requested.operation_id;
  const session = await browserSession({ db: database.db }, ids.user_id);
  assert.equal((await postDecision(cluster, operationId, session, "approve")).status, 303);

  // Kill the worker running the automation as soon as some (not all) of its slides are drawn.
  const run = () => database.db("automation_runs").where({ automation_id: automationId }).first();
  const readySlides = async (postId: string | null) =>
    postId ? (await database.db("carousel_slides").where({ post_id: postId, status: "ready" })).length : 0;
  let victim: ClusterProcess | undefined;
  const deadline = Date.now() + 60_000;
  while (!victim && Date.now() < deadline) {
    const r = await run();
    const ready = await readySlides(r?.post_id ?? null);
    if (ready >= 1 && ready < 6) victim = workerLogging(operationId, "operation running");
    if (ready === 6) assert.fail("the carousel finished before the worker could be killed");
    if (!victim) await sleep(20);
  }
  assert.ok(victim, "found the worker running the automation");
  victim.child.kill("SIGKILL");
  const atKill = await run();
  assert.equal(atKill.status, "running");
  const readyAtKill = await readySlides(atKill.post_id);
  // The earlier tests killed workers too: a fresh one notices the dead worker's leases.
  await cluster.addWorker("worker-4");

  const ended = await waitFor(run, (r) => r.status !== "running", 60_000);
  assert.equal(ended.status, "failed");
  assert.match(ended.error, /worker running this automation run stopped/);
  assert.match(ended.error, /retry_carousel/);
  const carouselRun = await database.db("carousel_runs").where({ post_id: ended.post_id }).first("status");
  assert.equal(carouselRun.status, "failed", "the carousel run it owns ended with it");
  const op = await waitFor(
    () => database.db("operations").where({ id: operationId }).first("state", "attempts"),
    (o) => o.state !== "running",
    30_000,
  );
  assert.deepEqual(op, { state: "outcome_unknown", attempts: 1 });

  await sleep((LEASE_SECONDS * 1000) / 2);
  const slides = await database.db("carousel_slides").where({ post_id: ended.post_id }).select("status");
  const ready = slides.filter((s: { status: string }) => s.status === "ready").length;
  assert.ok(ready >= readyAtKill && ready < 6, `nothing drawn after the end (${readyAtKill} -> ${ready})`);
  assert.ok(
    slides.every((s: { status: string }) => s.status === "ready" || s.status === "failed"),
    "the unfinished slides are failed, for retry_carousel",
  );
  assert.equal((await run()).status, "failed", "never resumed");
  const ledger: Array<{ delta: number; reason: string }> = await database
    .db("credit_ledger")
    .where({ user_id: ids.user_id })
    .select("delta", "reason");
  const charges = ledger.filter((l) => Number(l.delta) < 0).map((l) => Number(l.delta));
  assert.deepEqual(charges, [-30], "charged once");
  assert.deepEqual(
    ledger.filter((l) => l.reason.startsWith("refund:")),
    [],
    "not refunded: the generation had started",
  );
});
