/**
 * Errors that say how to recover (DESIGN.md section 3, service spec 7), through the real endpoint: every
 * error carries `retry` (same_key, new_key, after_user_action with the absolute `details.action_url`, never),
 * in agreement with the idempotency rules: the credits example recovers with a new key once credits are added,
 * while the failed key keeps its failure. An unknown argument's error lists the tool's arguments; a not_found
 * for one item of a list names its JSON pointer; messages name pages with absolute URLs.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { startTestApp } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";
import { account, product, setBalance, storedImage } from "../tools/carousels/fixtures.ts";

const app = await startTestApp({ env: { RATE_LIMIT_AI: "30", RATE_LIMIT_APPROVAL: "30" } });
const me = await app.user({ plan: "creator" });
const other = await app.user();
const { token } = await connect(app, me, [...ALL_SCOPES]);

async function call(name: string, args: Record<string, unknown>) {
  const r = await rpc(app.resource, "tools/call", { name, arguments: args }, { token });
  assert.equal(r.status, 200, r.text);
  return r.body.result as { isError?: boolean; structuredContent: any };
}

test("forbidden for missing credits: after_user_action with the billing page; a new key succeeds once credits are added", async () => {
  const productId = await product(app, me);
  await setBalance(app, me, 0);
  const args = { product_id: productId, design_id: "bold-minimal", slide_count: 6 };
  const firstKey = randomUUID();
  const refused = await call("generate_carousel", { ...args, idempotency_key: firstKey });
  assert.equal(refused.isError, true);
  const e = refused.structuredContent.error;
  assert.equal(e.code, "forbidden");
  assert.equal(e.retry, "after_user_action");
  assert.equal(e.details.action_url, `${app.url}/settings#billing`);
  assert.match(
    e.message,
    new RegExp(`on ${app.url}/settings#billing`),
    "the message names the page absolutely",
  );
  assert.deepEqual([e.details.credits_required, e.details.credits_balance], [30, 0]);

  await grantCredits(app.ctx.db, me.user_id, 100, "test:grant");
  const sameKey = await call("generate_carousel", { ...args, idempotency_key: firstKey });
  assert.equal(sameKey.structuredContent.error.code, "forbidden", "the failed key keeps its failure");
  const newKey = await call("generate_carousel", { ...args, idempotency_key: randomUUID() });
  assert.equal(newKey.isError, undefined, JSON.stringify(newKey.structuredContent));
  assert.equal(newKey.structuredContent.status, "queued");
  assert.equal(newKey.structuredContent.credits_charged, 30);
});

test("an unknown argument's error lists the tool's arguments (new_key)", async () => {
  const none = await call("get_profile", { user_id: me.user_id });
  assert.equal(none.structuredContent.error.code, "invalid_arguments");
  assert.match(
    none.structuredContent.error.message,
    /unknown argument "user_id"; get_profile takes no arguments/,
  );
  const some = await call("schedule_post", {
    post_id: randomUUID(),
    when: "tomorrow",
    idempotency_key: randomUUID(),
  });
  const e = some.structuredContent.error;
  assert.equal(e.code, "invalid_arguments");
  assert.equal(e.retry, "new_key");
  assert.match(
    e.message,
    /schedule_post takes post_id, scheduled_for, social_account_ids, first_comment, idempotency_key/,
  );
  assert.deepEqual(e.details.allowed_arguments, [
    "post_id",
    "scheduled_for",
    "social_account_ids",
    "first_comment",
    "idempotency_key",
  ]);
});

test("not_found for one item of a list names its JSON pointer", async () => {
  const mine = await storedImage(app, me);
  const theirs = await storedImage(app, other);
  const r = await call("create_image_post", {
    media_asset_ids: [mine, theirs],
    caption: "Two pictures",
    idempotency_key: randomUUID(),
  });
  const e = r.structuredContent.error;
  assert.equal(e.code, "not_found");
  assert.equal(e.retry, "new_key");
  assert.deepEqual(e.details, { path: "/media_asset_ids/1" });
  assert.match(e.message, /media asset not found at \/media_asset_ids\/1/);
});

test("an account to reconnect: account_setup_required, after_user_action with the social accounts page", async () => {
  const broken = await account(app, me, "facebook", "Old Page", "needs_reconnect");
  const [post] = await app.ctx
    .db("posts")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      type: "text",
      status: "draft",
      caption: "Hi",
    })
    .returning("id");
  const r = await call("publish_post", {
    post_id: post.id,
    social_account_ids: [broken],
    idempotency_key: randomUUID(),
  });
  const e = r.structuredContent.error;
  assert.equal(e.code, "account_setup_required");
  assert.equal(e.retry, "after_user_action");
  assert.equal(e.details.action_url, `${app.url}/settings/social`);
  assert.equal(e.details.accounts[0].social_account_id, broken, "the original details are kept");
});

test("analytics on a plan without it: after_user_action; rate_limited: same_key; another's record: not_found new_key", async () => {
  const analytics = await call("get_account_analytics", {});
  assert.equal(analytics.structuredContent.error.code, "forbidden");
  assert.equal(analytics.structuredContent.error.retry, "after_user_action");
  assert.equal(analytics.structuredContent.error.details.action_url, `${app.url}/settings#billing`);

  const job = await call("get_job_status", { operation_id: randomUUID() });
  assert.deepEqual(
    [job.structuredContent.error.code, job.structuredContent.error.retry],
    ["not_found", "new_key"],
  );

  const user = await app.user();
  const t = (await connect(app, user, [...ALL_SCOPES])).token;
  let limited: any;
  for (let i = 0; i < 40 && !limited; i++) {
    const r = await rpc(
      app.resource,
      "tools/call",
      { name: "generate_captions", arguments: { brief: "Hi" } },
      { token: t },
    );
    if (r.body.result?.structuredContent?.error?.code === "rate_limited")
      limited = r.body.result.structuredContent.error;
  }
  assert.ok(limited, "the ai budget ran out");
  assert.equal(limited.retry, "same_key");
  assert.ok(limited.retry_after > 0);
});
