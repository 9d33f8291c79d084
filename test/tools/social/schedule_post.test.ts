/** schedule_post, get_schedule and the due-schedule publisher over a real database and the sandbox connector. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { publishDueSchedules } from "../../../src/domain/social/schedules.ts";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import { handler as getScheduleHandler } from "../../../src/tools/social/get_schedule.ts";
import { handler as scheduleHandler } from "../../../src/tools/social/schedule_post.ts";
import {
  account,
  imagePost,
  inline,
  key,
  named,
  reviewed,
  setup,
  textPost,
  toolContext,
  toolError,
} from "../carousels/fixtures.ts";

const schedule = named("schedule_post", scheduleHandler);
const getSchedule = named("get_schedule", getScheduleHandler);
const publish = named("publish_post", publishHandler);

const { app, me, other, peer } = await setup();
const insta = await account(app, me, "instagram", "Shop Insta");
const pinterest = await account(app, me, "pinterest", "Shop Pins");
const tiktok = await account(app, me, "tiktok", "Shop TikTok");
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

test("schedule_post creates a schedule with pending deliveries; get_schedule reads it", async () => {
  const postId = await imagePost(app, me, "Launch day");
  const at = inAnHour();
  const { description, result } = await reviewed(app, me, schedule, {
    post_id: postId,
    scheduled_for: at,
    social_account_ids: [insta, pinterest],
    idempotency_key: key(),
  });
  assert.match(description.summary, /^Schedule the image post “Launch day” for /);
  assert.equal(description.destinations.length, 2);
  assert.equal(result.data.status, "scheduled");
  assert.equal(result.data.scheduled_for, at);
  assert.deepEqual(
    result.data.deliveries.map((d) => d.status),
    ["pending", "pending"],
  );
  assert.ok(
    result.data.deliveries.every((d) => d.schedule_id === result.data.schedule_id && d.scheduled_for === at),
  );
  assert.equal((await app.ctx.db("posts").where({ id: postId }).first()).status, "scheduled");

  const read = await inline(app, me, getSchedule, { schedule_id: result.data.schedule_id });
  assert.deepEqual(read.data, result.data);
  for (const who of [other, peer]) {
    assert.equal(
      (await toolError(inline(app, who, getSchedule, { schedule_id: result.data.schedule_id }))).code,
      "not_found",
    );
  }
});

test("a past or present timestamp is validation_failed", async () => {
  const postId = await textPost(app, me);
  for (const at of [new Date(Date.now() - 60_000).toISOString(), "2020-01-01T00:00:00Z"]) {
    const err = await toolError(
      schedule.describe!(
        { post_id: postId, scheduled_for: at, social_account_ids: [insta], idempotency_key: key() },
        toolContext(app, me),
      ),
    );
    assert.equal(err.code, "validation_failed");
    assert.match(err.message, /future/);
  }
});

test("scheduling to tiktok is rejected at call time", async () => {
  const postId = await textPost(app, me);
  const err = await toolError(
    schedule.describe!(
      { post_id: postId, scheduled_for: inAnHour(), social_account_ids: [tiktok], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /tiktok/);
});

test("foreign posts are not_found at describe time", async () => {
  const theirs = await textPost(app, other);
  const err = await toolError(
    schedule.describe!(
      { post_id: theirs, scheduled_for: inAnHour(), social_account_ids: [insta], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "not_found");
});

test("publishDueSchedules publishes a schedule whose time has come, exactly once", async () => {
  const postId = await imagePost(app, me);
  const { result } = await reviewed(app, me, schedule, {
    post_id: postId,
    scheduled_for: inAnHour(),
    social_account_ids: [insta],
    idempotency_key: key(),
  });
  await app.ctx
    .db("schedules")
    .where({ id: result.data.schedule_id })
    .update({ scheduled_for: new Date(Date.now() - 1000) });
  const counts = await Promise.all([publishDueSchedules(app.ctx), publishDueSchedules(app.ctx)]);
  assert.equal(
    counts.reduce((a, b) => a + b, 0),
    1,
  );
  const read = await inline(app, me, getSchedule, { schedule_id: result.data.schedule_id });
  assert.equal(read.data.status, "published");
  assert.equal(read.data.deliveries[0]!.status, "published");
  const d = read.data.deliveries[0]!;
  assert.equal(d.post_url, `${app.url}/sandbox/instagram/${d.delivery_id}`, "the sandbox post page");
});

test("a destination where the post is already scheduled or on its way is refused, naming the account; nothing changes", async () => {
  const postId = await imagePost(app, me, "Twice?");
  const first = await reviewed(app, me, schedule, {
    post_id: postId,
    scheduled_for: inAnHour(),
    social_account_ids: [insta],
    idempotency_key: key(),
  });
  const scheduleId = first.result.data.schedule_id;
  const deliveriesBefore = await app.ctx
    .db("deliveries")
    .where({ post_id: postId })
    .count<{ count: string }[]>();
  const again = {
    post_id: postId,
    scheduled_for: inAnHour(),
    social_account_ids: [insta, pinterest],
    idempotency_key: key(),
  };
  for (const refused of [
    () => schedule.describe!(again, toolContext(app, me)),
    () => schedule.execute(again, toolContext(app, me)),
    () =>
      publish.describe!(
        { post_id: postId, social_account_ids: [insta], idempotency_key: key() },
        toolContext(app, me),
      ),
  ]) {
    const err = await toolError(refused());
    assert.equal(err.code, "validation_failed");
    assert.match(
      err.message,
      new RegExp(
        `"Shop Insta" \\(instagram, social_account_id ${insta}\\): already scheduled there \\(schedule_id ${scheduleId}\\)`,
      ),
    );
    assert.doesNotMatch(err.message, /Shop Pins/);
  }

  // A delivery on its way without a schedule (publish_post) is named with its delivery id and state.
  const direct = await imagePost(app, me, "On its way");
  const [delivery] = await app.ctx
    .db("deliveries")
    .insert({
      post_id: direct,
      social_account_id: insta,
      status: "uploading",
      workspace_id: me.workspace_id,
      user_id: me.user_id,
    })
    .returning("id");
  const onItsWay = await toolError(
    publish.describe!(
      { post_id: direct, social_account_ids: [insta], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(onItsWay.code, "validation_failed");
  assert.match(
    onItsWay.message,
    new RegExp(`already on its way there \\(delivery_id ${delivery!.id}, uploading\\)`),
  );
  assert.deepEqual(
    await app.ctx.db("deliveries").where({ post_id: postId }).count<{ count: string }[]>(),
    deliveriesBefore,
  );
  const [schedules] = await app.ctx.db("schedules").where({ post_id: postId }).count<{ count: string }[]>();
  assert.equal(Number(schedules!.count), 1);
});
