/**
 * What is approved is what goes out (docs/social.md "Approved content: what the user approves is what goes
 * out"): the real tool pipeline, browser decisions (`decideOperation`, what the approval page's form calls),
 * the worker's `processOperation`, the carousel render job and the due-schedule pass, with the live Pinterest
 * adapter against its provider-shaped fake (test/fakes/pinterest.ts, through SOCIAL_HTTP_OVERRIDE).
 * - a scheduled carousel locks its approved content: regenerate_carousel_slide, retry_carousel, a new
 *   caption and a new product URL are refused naming the schedule; a content change forced past the lock
 *   publishes nothing (no request reaches Pinterest) and fails the delivery with a plain reason;
 * - canceling the schedule (the posts page's domain function) releases the lock;
 * - the Pinterest link is recorded in the request, shown on the approval page, makes a request stale when
 *   it changes before the decision, and is the Pin's link as approved.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { CHANGED_AFTER_APPROVAL } from "../../src/domain/social/content.ts";
import { cancelSchedule, publishDueSchedules } from "../../src/domain/social/schedules.ts";
import { decideOperation } from "../../src/operations/approvals.ts";
import { processOperation } from "../../src/operations/execute.ts";
import { processCarouselRender } from "../../src/operations/render.ts";
import { createRuntime } from "../../src/runtime/pipeline.ts";
import type { Envelope } from "../../src/tool-contract.ts";
import { handler as approveCarouselHandler } from "../../src/tools/carousels/approve_carousel.ts";
import { PIN_API_HOST, pinterestFake } from "../fakes/pinterest.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";
import { connectPinterest } from "../helpers/pinterest-account.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";
import { call, connection, key } from "../operations/helpers.ts";
import { balance, toolContext, toolError } from "../tools/carousels/fixtures.ts";

const server = await startFakeNetworks();
const pin = pinterestFake(server, { ...FAKE_APPS.pinterest, processingPolls: 0 });
const app = await startTestApp({
  env: {
    ...HIGH_LIMITS,
    ...liveNetworkEnv(server, ["pinterest"]),
    RATE_LIMIT_AI: "1000",
    RATE_LIMIT_APPROVAL: "1000",
    RATE_LIMIT_WRITES: "1000",
  },
});
const rt = createRuntime(app.ctx, [...TOOLS_BY_NAME.values()]);
const db = app.ctx.db;
const alice = await app.user({ workspace: "Alice Studio" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
await grantCredits(db, alice.user_id, 1000, "test:grant");
const auth = await connection(app, alice, [
  "create:products",
  "manage:products",
  "read:content",
  "create:carousels",
  "manage:carousels",
  "publish:content",
  "schedule:content",
  "read:schedules",
  "read:jobs",
]);

/** A live Pinterest account with one board ("Mugs"), connected as the browser flow does. */
const pinner = pin.addUser({ username: "alice.pins", boards: ["Mugs"] });
const board = pinner.boards[0]!;
const pinterest = await connectPinterest(app.ctx, owner, pinner);

/** Calls `name` and asserts it was not refused. */
async function ok(name: string, args: Record<string, unknown>): Promise<Envelope> {
  const env = await call(rt, auth, name, { idempotency_key: key(), ...args });
  assert.equal(env.error, undefined, `${name}: ${JSON.stringify(env.error)}`);
  return env;
}

/** The owner approves `env`'s request; the worker runs it. @returns the operation row afterwards. */
async function approveAndRun(env: Envelope) {
  assert.equal(env.status, "approval_required");
  const decided = await decideOperation(app.ctx, env.operation_id!, alice.user_id, "approve");
  assert.equal(decided.kind, "approved", JSON.stringify(decided));
  await processOperation(app.ctx, env.operation_id!);
  return db("operations").where({ id: env.operation_id }).first();
}

/** A product with `url` and an approved, fully rendered 4-slide square carousel of it. */
async function approvedCarousel(url: string) {
  const product = await ok("create_product", { name: "Stoneware mug", product_url: url });
  const productId = product.data!.product_id as string;
  const started = await ok("generate_carousel", {
    product_id: productId,
    slide_count: 4,
    design_id: "bold-minimal",
    format: "square",
  });
  await processOperation(app.ctx, started.operation_id!);
  const { post_id: postId, run_id: runId } = started.data as { post_id: string; run_id: string };
  assert.equal((await processCarouselRender(app.ctx, runId)).status, "succeeded");
  const op = await approveAndRun(await ok("approve_carousel", { post_id: postId }));
  assert.equal(op.state, "succeeded");
  return { productId, postId };
}

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

/** Schedules `postId` to Pinterest, approved and run. @returns the schedule id. */
async function scheduled(postId: string): Promise<string> {
  const op = await approveAndRun(
    await ok("schedule_post", {
      post_id: postId,
      scheduled_for: inAnHour(),
      social_account_ids: [pinterest],
    }),
  );
  assert.equal(op.state, "succeeded", op.error_message ?? "");
  return (await db("schedules").where({ post_id: postId }).first("id")).id;
}

test("a scheduled carousel is locked; a change forced past the lock publishes nothing", async () => {
  const url = "https://shop.example/mug-a";
  const { productId, postId } = await approvedCarousel(url);
  const scheduleId = await scheduled(postId);
  const delivery = await db("deliveries").where({ schedule_id: scheduleId }).first();
  assert.match(delivery.content_fingerprint, /^[0-9a-f]{64}$/, "the delivery carries the approval");
  assert.equal(delivery.approved_link, url);
  assert.equal(delivery.approved_board_id, board.id);

  const credits = await balance(app, alice);
  const runs = await db("carousel_runs").where({ post_id: postId }).count<{ n: string }[]>({ n: "*" });
  for (const [tool, args] of [
    ["regenerate_carousel_slide", { post_id: postId, position: 2, what: "copy" }],
    ["regenerate_carousel_slide", { post_id: postId, position: 3 }],
    ["retry_carousel", { post_id: postId }],
    ["update_product", { product_id: productId, product_url: "https://elsewhere.example/x" }],
  ] as const) {
    const env = await call(rt, auth, tool, { idempotency_key: key(), ...args });
    assert.equal(env.error?.code, "validation_failed", `${tool}: ${JSON.stringify(env)}`);
    assert.ok(env.error.message.includes(scheduleId), `${tool} names the schedule: ${env.error.message}`);
    assert.match(env.error.message, /cancel the schedule on the posts page/);
    assert.deepEqual((env.error.details as { schedule_ids: string[] }).schedule_ids, [scheduleId]);
  }
  const caption = await toolError(
    approveCarouselHandler.describe(
      { post_id: postId, caption: "A brand new caption", idempotency_key: key() } as never,
      toolContext(app, alice),
    ),
  );
  assert.equal(caption.code, "validation_failed");
  assert.ok(caption.message.includes(scheduleId));
  assert.equal(await balance(app, alice), credits, "nothing charged");
  assert.deepEqual(
    await db("carousel_runs").where({ post_id: postId }).count<{ n: string }[]>({ n: "*" }),
    runs,
    "no run started",
  );
  assert.equal((await db("products").where({ id: productId }).first()).product_url, url);

  // Forced past the lock (a bug, or a hand edit): slide 2 shows another image when the schedule comes due.
  const [other] = await db("carousel_slides").where({ post_id: postId }).orderBy("position").select();
  await db("carousel_slides")
    .where({ post_id: postId, position: 2 })
    .update({ image_asset_id: other.image_asset_id });
  await db("schedules")
    .where({ id: scheduleId })
    .update({ scheduled_for: new Date(Date.now() - 1000) });
  const hitsBefore = server.hits.filter((h) => h.host === PIN_API_HOST).length;
  const pinsBefore = pin.pins.size;
  assert.equal(await publishDueSchedules(app.ctx), 1);
  const failed = await db("deliveries").where({ id: delivery.id }).first();
  assert.equal(failed.status, "failed");
  assert.equal(failed.error, CHANGED_AFTER_APPROVAL);
  assert.deepEqual(failed.network_ids, {});
  assert.equal(
    server.hits.filter((h) => h.host === PIN_API_HOST).length,
    hitsBefore,
    "no request reached Pinterest",
  );
  assert.equal(pin.pins.size, pinsBefore);
  assert.equal((await db("schedules").where({ id: scheduleId }).first()).status, "failed");
});

test("canceling the schedule releases the lock", async () => {
  const { postId } = await approvedCarousel("https://shop.example/mug-b");
  const scheduleId = await scheduled(postId);
  const refused = await call(rt, auth, "regenerate_carousel_slide", {
    post_id: postId,
    position: 1,
    what: "copy",
    idempotency_key: key(),
  });
  assert.equal(refused.error?.code, "validation_failed");
  const canceled = await cancelSchedule(app.ctx, owner, scheduleId);
  assert.deepEqual(canceled, {
    schedule_id: scheduleId,
    post_id: postId,
    status: "canceled",
    canceled_deliveries: 1,
  });
  const d = await db("deliveries").where({ schedule_id: scheduleId }).first();
  assert.equal(d.status, "failed");
  assert.match(d.error, /canceled by the owner/);
  assert.equal((await db("posts").where({ id: postId }).first()).status, "approved", "still approved");
  const again = await call(rt, auth, "regenerate_carousel_slide", {
    post_id: postId,
    position: 1,
    what: "copy",
    idempotency_key: key(),
  });
  assert.equal(again.error, undefined, JSON.stringify(again.error));
  assert.equal(again.status, "queued");
  const second = await toolError(cancelSchedule(app.ctx, owner, scheduleId));
  assert.equal(second.code, "validation_failed", "a canceled schedule cannot be canceled again");
  const stranger = await app.user();
  const foreign = await toolError(
    cancelSchedule(app.ctx, { userId: stranger.user_id, workspaceId: stranger.workspace_id }, scheduleId),
  );
  assert.equal(foreign.code, "not_found");
});

test("the Pinterest link is in the request, on the page, makes a changed request stale, and is the Pin's link", async () => {
  const first = "https://shop.example/mug-c";
  const { productId, postId } = await approvedCarousel(first);
  const request = await ok("publish_post", { post_id: postId, social_account_ids: [pinterest] });
  const session = await browserSession(app.ctx, alice.user_id);
  const pageHtml = await (await fetch(request.approval_url!, { headers: { cookie: session.cookie } })).text();
  const $ = cheerio.load(pageHtml);
  assert.equal($("#pinterest-link a").attr("href"), first, "the page shows the link");
  assert.match($("#destinations").text(), new RegExp(board.id));

  // The product URL changes before the decision (no delivery yet, so it is allowed): the request is stale.
  await ok("update_product", { product_id: productId, product_url: "https://shop.example/mug-c2" });
  const pinsBefore = pin.pins.size;
  const stale = await decideOperation(app.ctx, request.operation_id!, alice.user_id, "approve");
  assert.equal(stale.kind, "stale");
  assert.equal(pin.pins.size, pinsBefore, "nothing was published");

  // A new request shows the new link; approved, the Pin carries exactly that link.
  const second = "https://shop.example/mug-c2";
  const op = await approveAndRun(
    await ok("publish_post", { post_id: postId, social_account_ids: [pinterest] }),
  );
  assert.equal(op.state, "succeeded", op.error_message ?? "");
  const d = await db("deliveries")
    .where({ post_id: postId, social_account_id: pinterest, status: "published" })
    .first();
  assert.ok(d, "published");
  const created = pin.pins.get(d.provider_post_id)!;
  assert.equal(created.link, second);
  assert.equal(created.boardId, board.id);
  assert.equal(created.mediaType, "multiple_images");
});

test("a scheduled Pin uses the link as approved even when the product URL is changed past the lock", async () => {
  const approvedUrl = "https://shop.example/mug-d";
  const { productId, postId } = await approvedCarousel(approvedUrl);
  const scheduleId = await scheduled(postId);
  await db("products").where({ id: productId }).update({ product_url: "https://evil.example/x" });
  await db("schedules")
    .where({ id: scheduleId })
    .update({ scheduled_for: new Date(Date.now() - 1000) });
  assert.equal(await publishDueSchedules(app.ctx), 1);
  const d = await db("deliveries").where({ schedule_id: scheduleId }).first();
  assert.equal(d.status, "published", d.error ?? "");
  assert.equal(pin.pins.get(d.provider_post_id)!.link, approvedUrl);
});
