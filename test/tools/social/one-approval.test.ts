/**
 * Fewer calls for the main job (DESIGN.md section 4): schedule_post and publish_post on a draft carousel
 * approve it in the same request; schedule_posts schedules up to 14 posts on one approval page (all or none);
 * check_post tells, creating nothing, what each destination would refuse; generate_carousel refuses a
 * carousel its named destinations would refuse before any credit is charged.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { rowBinding } from "../../../src/crypto/seal.ts";
import { handler as generateHandler } from "../../../src/tools/carousels/generate_carousel.ts";
import { handler as checkHandler } from "../../../src/tools/social/check_post.ts";
import { handler as scheduleHandler } from "../../../src/tools/social/schedule_post.ts";
import { handler as schedulePostsHandler } from "../../../src/tools/social/schedule_posts.ts";
import { renderApprovalPage } from "../../../src/web/approval-page.ts";
import type { OperationRow } from "../../../src/domain/operations/store.ts";
import {
  account,
  balance,
  imagePost,
  inline,
  key,
  named,
  product,
  reviewed,
  setup,
  storedImage,
  toolContext,
  toolError,
} from "../carousels/fixtures.ts";
import type { TestApp } from "../../helpers/app.ts";

const schedule = named("schedule_post", scheduleHandler);
const scheduleMany = named("schedule_posts", schedulePostsHandler);
const check = named("check_post", checkHandler);
const generate = named("generate_carousel", generateHandler);

const { app, me } = await setup();
const insta = await account(app, me, "instagram", "Shop Insta");
const linkedin = await account(app, me, "linkedin", "Shop LinkedIn");
const x = await account(app, me, "x", "Shop X");
const tiktok = await account(app, me, "tiktok", "Shop TikTok");
const stale = await account(app, me, "facebook", "Old Page", "needs_reconnect");
const inHours = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();

/** A fully generated carousel of `who` in `status` with `slides` ready slides (stored JPEGs). */
async function readyCarousel(a: TestApp, slides: number, status = "draft"): Promise<string> {
  const [row] = await a.ctx
    .db("posts")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      type: "carousel",
      status,
      title: "Glow Serum",
      caption: "Glow all week. #skincare",
    })
    .returning("id");
  for (let i = 1; i <= slides; i++)
    await a.ctx.db("carousel_slides").insert({
      post_id: row.id,
      position: i,
      status: "ready",
      headline: `Slide ${i}`,
      image_asset_id: await storedImage(a, me),
    });
  return row.id;
}

test("schedule_post on a draft carousel: one request shows every slide and approves the carousel with the schedule", async () => {
  const postId = await readyCarousel(app, 4);
  const { description, result } = await reviewed(app, me, schedule, {
    post_id: postId,
    scheduled_for: inHours(2),
    social_account_ids: [insta, linkedin],
    idempotency_key: key(),
  });
  assert.match(description.summary, /^Approve the 4-slide carousel “.+” and schedule the carousel post for /);
  assert.deepEqual(
    description.images?.map((i) => i.label),
    ["Slide 1/4", "Slide 2/4", "Slide 3/4", "Slide 4/4"],
  );
  assert.equal(description.content?.slide_asset_ids.length, 4, "the approval binds the slides");
  assert.equal(result.data.status, "scheduled");
  assert.equal((await app.ctx.db("posts").where({ id: postId }).first()).status, "scheduled");
});

test("schedule_posts: one page with every post, one decision, all scheduled", async () => {
  const carousel = await readyCarousel(app, 3);
  const image = await imagePost(app, me, "Tuesday tip");
  const items = [
    { post_id: carousel, scheduled_for: inHours(24), social_account_ids: [insta, x] },
    { post_id: image, scheduled_for: inHours(48), social_account_ids: [linkedin] },
  ];
  const { description, result } = await reviewed(app, me, scheduleMany, { items, idempotency_key: key() });
  assert.match(description.summary, /^Schedule 2 posts \(.+\) between .+ and .+ to /);
  assert.equal(description.items?.length, 2);
  assert.match(description.items![0]!.summary, /^Approve the 3-slide carousel/);
  assert.equal(description.items![1]!.images?.length, 1);
  assert.deepEqual(
    result.data.schedules.map((s) => [s.post_id, s.deliveries.length, s.status]),
    [
      [carousel, 2, "scheduled"],
      [image, 1, "scheduled"],
    ],
  );
  // the approval page shows each item with its own slides, caption, time and destinations
  const html = renderApprovalPage({
    op: {
      id: randomUUID(),
      tool: "schedule_posts",
      state: "approval_required",
      approval_expires_at: new Date(Date.now() + 600_000),
      created_at: new Date(),
    } as OperationRow,
    toolTitle: "Schedule posts",
    clientName: "Agent",
    clientVerified: true,
    description,
    csrfToken: "t",
    now: new Date(),
  });
  for (const n of [1, 2]) {
    assert.match(html, new RegExp(`id="item-${n}"[^>]*><h2 id="item-${n}-title">Post ${n} of 2</h2>`));
    assert.match(html, new RegExp(`id="item-${n}-when"`));
    assert.match(html, new RegExp(`id="item-${n}-destinations"`));
  }
  assert.equal((html.match(/id="item-1-slides"/g) ?? []).length, 1);
  assert.equal((html.match(/<img src="\/media\//g) ?? []).length, 4, "3 slides and 1 picture");
});

test("schedule_posts: an item refused at the call names the item; one changed after approval schedules none", async () => {
  const first = await imagePost(app, me, "Monday");
  const second = await imagePost(app, me, "Wednesday");
  const refused = await toolError(
    scheduleMany.describe!(
      {
        items: [
          { post_id: first, scheduled_for: inHours(5), social_account_ids: [insta] },
          { post_id: second, scheduled_for: inHours(6), social_account_ids: [tiktok] },
        ],
        idempotency_key: key(),
      },
      toolContext(app, me),
    ),
  );
  assert.equal(refused.code, "validation_failed");
  assert.match(refused.message, /^item 2 \(\/items\/1\): publishing or scheduling to tiktok/);

  const input = {
    items: [
      { post_id: first, scheduled_for: inHours(5), social_account_ids: [insta] },
      { post_id: second, scheduled_for: inHours(6), social_account_ids: [x] },
    ],
    idempotency_key: key(),
  };
  const operationId = randomUUID();
  const description = await scheduleMany.describe!(input, toolContext(app, me, app.ctx.db, operationId));
  await app.ctx.db("operations").insert({
    id: operationId,
    grant_id: (await grant()).id,
    user_id: me.user_id,
    workspace_id: me.workspace_id,
    client_id: (await grant()).client_id,
    tool: "schedule_posts",
    state: "running",
    arguments_sealed: "x",
    key_id: "k",
    description_sealed: app.ctx.sealer.seal(
      description,
      rowBinding("operations", "description_sealed", operationId),
    ),
  });
  await app.ctx.db("posts").where({ id: second }).update({ caption: "Wednesday, changed" });
  const err = await toolError(scheduleMany.execute(input, toolContext(app, me, app.ctx.db, operationId)));
  assert.match(err.message, /^item 2 \(\/items\/1\): the post changed after it was approved/);
  assert.equal(
    (await app.ctx.db("schedules").whereIn("post_id", [first, second])).length,
    0,
    "all or none: the first item's schedule was rolled back",
  );
});

/** A grant of `me` (operations reference one). */
async function grant(): Promise<{ id: string; client_id: string }> {
  const existing = await app.ctx.db("oauth_grants").where({ user_id: me.user_id }).first("id", "client_id");
  if (existing) return existing;
  const [client] = await app.ctx
    .db("oauth_clients")
    .insert({ client_name: "t", redirect_uris: "[]", grant_types: "[]", response_types: "[]" })
    .returning("client_id");
  const [g] = await app.ctx
    .db("oauth_grants")
    .insert({
      user_id: me.user_id,
      workspace_id: me.workspace_id,
      client_id: client.client_id,
      resource: app.resource,
      scope: "schedule:content",
    })
    .returning(["id", "client_id"]);
  return g;
}

test("check_post: per destination ok or the problems publish and schedule would refuse with", async () => {
  const carousel = await readyCarousel(app, 6);
  const { data } = await inline(app, me, check, {
    post_id: carousel,
    social_account_ids: [insta, linkedin, x, tiktok, stale],
  });
  assert.equal(data.needs_approval, true, "a draft carousel: the publish or schedule approval covers it");
  assert.equal(data.ok, false);
  const by = new Map(data.destinations.map((d) => [d.network, d]));
  assert.equal(by.get("instagram")!.ok, true);
  assert.equal(by.get("linkedin")!.ok, true);
  assert.deepEqual(
    by.get("x")!.problems.map((p) => p.rule),
    ["image_count"],
  );
  assert.match(by.get("x")!.problems[0]!.message, /X accepts at most 4/);
  assert.ok(by.get("tiktok")!.problems.some((p) => p.rule === "tiktok_review_only"));
  const reconnect = by.get("facebook")!.problems.find((p) => p.rule === "account_status")!;
  assert.match(reconnect.message, new RegExp(`reconnect it on ${app.url}/settings/social`), "absolute URL");
  assert.equal(
    await app.ctx.db("deliveries").where({ post_id: carousel }).first(),
    undefined,
    "nothing created",
  );

  const missing = await toolError(
    inline(app, me, check, { post_id: carousel, social_account_ids: [insta, randomUUID()] }),
  );
  assert.equal(missing.code, "not_found");
  assert.deepEqual(missing.details, { path: "/social_account_ids/1" });
});

test("generate_carousel with destinations: a carousel they refuse is refused before any credit is charged", async () => {
  const productId = await product(app, me);
  const before = await balance(app, me);
  const posts = async () =>
    (await app.ctx.db("posts").where({ user_id: me.user_id, type: "carousel" })).length;
  const postsBefore = await posts();
  const err = await toolError(
    app.ctx.db.transaction((trx) =>
      generate.accept!(
        {
          product_id: productId,
          design_id: "bold-minimal",
          slide_count: 6,
          format: "portrait",
          social_account_ids: [insta, linkedin, x],
          idempotency_key: key(),
        },
        toolContext(app, me, trx),
      ),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /X \("Shop X"\): this post has 6 items; X accepts at most 4 in one post/);
  assert.match(err.message, /Nothing was charged/);
  assert.equal(await balance(app, me), before, "no credit charged");
  assert.equal(await posts(), postsBefore, "no post created");

  const ok = await app.ctx.db.transaction((trx) =>
    generate.accept!(
      {
        product_id: productId,
        design_id: "bold-minimal",
        slide_count: 4,
        format: "portrait",
        social_account_ids: [insta, linkedin, x],
        idempotency_key: key(),
      },
      toolContext(app, me, trx),
    ),
  );
  assert.equal(ok.credits_charged, 20);
  const run = await app.ctx.db("carousel_runs").where({ id: ok.data.run_id }).first();
  assert.deepEqual(run.destination_account_ids, [insta, linkedin, x], "kept for get_carousel's next");
});
