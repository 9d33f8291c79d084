/**
 * publish_post and schedule_post to an expired or needs_reconnect social account fail at the call with
 * `account_setup_required` (service spec 7) instead of leaving a pending delivery; an account that expires
 * between approval and execution is refused the same way, and nothing is written.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import { handler as scheduleHandler } from "../../../src/tools/social/schedule_post.ts";
import { account, key, named, setup, textPost, toolContext, toolError } from "../carousels/fixtures.ts";

const publish = named("publish_post", publishHandler);
const schedule = named("schedule_post", scheduleHandler);

const { app, me } = await setup();
const insta = await account(app, me, "instagram", "Shop Insta");
const expired = await account(app, me, "facebook", "Old Page", "expired");
const reconnect = await account(app, me, "linkedin", "Company Page", "needs_reconnect");
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

async function nothingWritten(postId: string) {
  assert.equal((await app.ctx.db("deliveries").where({ post_id: postId })).length, 0);
  assert.equal((await app.ctx.db("schedules").where({ post_id: postId })).length, 0);
  assert.equal((await app.ctx.db("posts").where({ id: postId }).first()).status, "draft");
}

for (const [label, bad] of [
  ["expired", expired],
  ["needs_reconnect", reconnect],
] as const) {
  test(`publish_post to a ${label} account is account_setup_required at the call`, async () => {
    const postId = await textPost(app, me);
    const err = await toolError(
      publish.describe!(
        { post_id: postId, social_account_ids: [insta, bad], idempotency_key: key() },
        toolContext(app, me),
      ),
    );
    assert.equal(err.code, "account_setup_required");
    assert.match(err.message, new RegExp(`is ${label}: the user must reconnect it on /settings/social`));
    assert.equal(err.retry, "after_user_action");
    assert.equal(err.recovery.actionPath, "/settings/social");
    assert.deepEqual(err.details, { accounts: [{ social_account_id: bad, status: label }] });
    await nothingWritten(postId);
  });

  test(`schedule_post to a ${label} account is account_setup_required at the call`, async () => {
    const postId = await textPost(app, me);
    const err = await toolError(
      schedule.describe!(
        { post_id: postId, scheduled_for: inAnHour(), social_account_ids: [bad], idempotency_key: key() },
        toolContext(app, me),
      ),
    );
    assert.equal(err.code, "account_setup_required");
    await nothingWritten(postId);
  });
}

test("an account that needs reconnecting after approval is refused when the approved action runs", async () => {
  const account2 = await account(app, me, "x", "Shop X");
  const postId = await textPost(app, me);
  const input = { post_id: postId, social_account_ids: [account2], idempotency_key: key() };
  await publish.describe!(input, toolContext(app, me));
  await app.ctx.db("social_accounts").where({ id: account2 }).update({ status: "needs_reconnect" });
  const err = await toolError(publish.execute(input, toolContext(app, me)));
  assert.equal(err.code, "account_setup_required");
  const sched = { ...input, scheduled_for: inAnHour() };
  assert.equal(
    (await toolError(schedule.execute(sched, toolContext(app, me)))).code,
    "account_setup_required",
  );
  await nothingWritten(postId);
});
