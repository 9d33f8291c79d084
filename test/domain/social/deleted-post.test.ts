/**
 * A deleted post is never published (docs/social.md "Deliveries: the engine"): delete_post stops the post's
 * deliveries that are not published yet, and the delivery engine checks `deleted_at` before every step that
 * can create something on the network, so a delivery a worker held while the post was deleted is stopped at
 * its next step. Against the X fake (test/fakes/x.ts): no tweet is ever created for the deleted post.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { upsertConnectedAccount } from "../../../src/domain/social/accounts.ts";
import { runDeliveryPass, runDeliveryStep } from "../../../src/domain/social/engine.ts";
import { handler as deletePostHandler } from "../../../src/tools/content/delete_post.ts";
import { FAKE_APPS, liveNetworkEnv } from "../../fakes/live-env.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { connectedXAccount, xFake } from "../../fakes/x.ts";
import { startTestApp } from "../../helpers/app.ts";
import { key, named, reviewed } from "../../tools/carousels/fixtures.ts";

const server = await startFakeNetworks();
const x = xFake(server, FAKE_APPS.x);
const app = await startTestApp({ queue: false, env: liveNetworkEnv(server, ["x"]) });
const me = await app.user();
const owner = { userId: me.user_id, workspaceId: me.workspace_id };
const { account } = await upsertConnectedAccount(
  app.ctx.db,
  app.ctx.sealer,
  owner,
  connectedXAccount(x.addUser({ username: "deleted_posts" })),
);
const deletePost = named("delete_post", deletePostHandler);

/** A text post with one delivery to the X account, due now; `leased` holds it for another worker. */
async function postWithDelivery(caption: string, leased = false) {
  const [post] = await app.ctx
    .db("posts")
    .insert({ ...ownerRow(), type: "text", status: "publishing", caption })
    .returning("id");
  const [delivery] = await app.ctx
    .db("deliveries")
    .insert({
      ...ownerRow(),
      post_id: post.id,
      social_account_id: account.social_account_id,
      status: "pending",
      next_attempt_at: new Date(Date.now() - 1000),
      locked_until: leased ? new Date(Date.now() + 60_000) : null,
    })
    .returning("id");
  return { postId: post.id as string, deliveryId: delivery.id as string };
}

function ownerRow() {
  return { workspace_id: me.workspace_id, user_id: me.user_id };
}

const delivery = (id: string) => app.ctx.db("deliveries").where({ id }).first("status", "error", "post_url");
const tweetsWith = (caption: string) => [...x.tweets.values()].filter((t) => t.sent === caption).length;

test("delete_post stops the deliveries not published yet: failed with the reason, nothing reaches X", async () => {
  const { postId, deliveryId } = await postWithDelivery("Deleted before its turn");
  await reviewed(app, me, deletePost, { post_id: postId, idempotency_key: key() });
  const stopped = await delivery(deliveryId);
  assert.equal(stopped.status, "failed", "stopped by delete_post itself");
  assert.match(stopped.error, /the post was deleted before it was published; nothing was sent/);
  await runDeliveryPass(app.ctx);
  assert.equal(tweetsWith("Deleted before its turn"), 0);
  assert.equal((await delivery(deliveryId)).post_url, null);
});

test("the engine checks deleted_at before a step that creates: a delivery held by a worker at the delete is stopped at its next step", async () => {
  const { postId, deliveryId } = await postWithDelivery("Deleted while a worker held it", true);
  await reviewed(app, me, deletePost, { post_id: postId, idempotency_key: key() });
  assert.equal((await delivery(deliveryId)).status, "pending", "a worker held it: left to the engine");
  // The holder's lease runs out (it died or let go); the next step must not create the post.
  await app.ctx.db("deliveries").where({ id: deliveryId }).update({ locked_until: null });
  assert.equal(await runDeliveryStep(app.ctx, deliveryId), "failed");
  const d = await delivery(deliveryId);
  assert.match(d.error, /the post was deleted before it was published/);
  assert.equal(d.post_url, null);
  assert.equal(tweetsWith("Deleted while a worker held it"), 0, "X never got the create");
});
