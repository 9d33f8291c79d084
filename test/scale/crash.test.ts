/**
 * Crashes (README "Running more than one instance"; docs/operations.md "Leases"): two workers on one
 * database; the worker rendering a 6-slide carousel is killed with SIGKILL half way. Its lease runs out,
 * the other worker takes the operation over and finishes the carousel from the slides already rendered:
 * within 60 s, each slide image generated once, the credits charged once. A non-resumable operation whose
 * worker dies becomes `outcome_unknown` at once (no blind replay).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { createUser } from "../../src/domain/account/accounts.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { freshDatabase } from "../helpers/db.ts";
import { connect } from "../helpers/tokens.ts";
import { startCluster, toolCaller } from "./cluster.ts";

const LEASE_SECONDS = 6;
const database = await freshDatabase({ autoDrop: false });
const cluster = await startCluster({
  databaseUrl: database.url,
  db: database.db,
  servers: 1,
  workers: 2,
  env: { WORKER_LEASE_SECONDS: String(LEASE_SECONDS), WORKER_CONCURRENCY: "1" },
});
after(async () => {
  await cluster.stop();
  await database.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("SIGKILL of the worker mid-carousel: another worker resumes within 60 s; each slide once, credits once", async () => {
  const ids = await createUser(database.db, {
    email: `crash-${randomUUID().slice(0, 8)}@example.test`,
    password: "correct horse battery staple",
    workspace: "Crash",
    plan: "pro",
  });
  await grantCredits(database.db, ids.user_id, 100, "test:grant");
  const { token } = await connect(cluster.issuer, ids, [
    "create:products",
    "read:content",
    "create:carousels",
    "read:jobs",
  ]);
  const call = toolCaller(cluster, token);
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
  const slides = () => database.db("carousel_slides").where({ post_id: postId });

  // Kill whichever worker holds the operation as soon as some (not all) slides are ready.
  let victim: (typeof cluster.processes)[number] | undefined;
  const deadline = Date.now() + 60_000;
  while (!victim && Date.now() < deadline) {
    const ready = (await slides()).filter((s: { status: string }) => s.status === "ready").length;
    if (ready >= 1 && ready < 6) {
      victim = cluster.processes.find(
        (p) =>
          p.role === "worker" &&
          p.lines.some((l) => l.includes(operationId) && l.includes("operation running")),
      );
    }
    if (ready === 6) assert.fail("the carousel finished before the worker could be killed");
    if (!victim) await sleep(20);
  }
  assert.ok(victim, "found the worker running the carousel");
  victim.child.kill("SIGKILL");
  const killedAt = Date.now();
  const readyAtKill = (await slides()).filter((s: { status: string }) => s.status === "ready").length;
  assert.ok(readyAtKill < 6, "killed half way");

  let op: { state: string; attempts: number } | undefined;
  while (Date.now() - killedAt < 60_000) {
    op = await database.db("operations").where({ id: operationId }).first("state", "attempts");
    if (op && !["running", "queued", "approved"].includes(op.state)) break;
    await sleep(250);
  }
  const resumedWithin = (Date.now() - killedAt) / 1000;
  assert.equal(op?.state, "succeeded", `finished after the crash (state ${op?.state})`);
  assert.ok(resumedWithin < 60, `resumed and finished within 60 s (${resumedWithin.toFixed(1)} s)`);
  assert.equal(op?.attempts, 2, "one takeover");

  const finalSlides = await slides();
  assert.equal(finalSlides.filter((s: { status: string }) => s.status === "ready").length, 6);
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
});
