/**
 * A step that leaves its delivery due again at once (the adapter asked for no wait: an upload right after
 * its session was opened) is followed by the delivery's next step in the same lane place, each a claim of
 * its own (src/operations/delivery-lanes.ts `start`, `CONTINUED_STEPS`), not after the loop's next look-up,
 * and never once the loop is stopping. Sandbox accounts (src/providers/social/sandbox/)
 * take two steps a post: the upload (due again at once), then the post.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CONTINUED_STEPS, DeliveryLanes } from "../../src/operations/delivery-lanes.ts";
import { account, textPost } from "../tools/carousels/fixtures.ts";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ queue: false });
const me = await app.user();

/** A due sandbox X delivery of a new text post; its id and account. */
async function dueDelivery(name: string): Promise<{ id: string; network: "x"; socialAccountId: string }> {
  const socialAccountId = await account(app, me, "x", name);
  const [row] = await app.ctx
    .db("deliveries")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      post_id: await textPost(app, me, `Two steps for ${name}`),
      social_account_id: socialAccountId,
      status: "pending",
      next_attempt_at: new Date(Date.now() - 1000),
    })
    .returning("id");
  return { id: row.id, network: "x", socialAccountId };
}

const status = async (id: string) => (await app.ctx.db("deliveries").where({ id }).first("status")).status;

test("a delivery due again at once is stepped on in its place: one start publishes a two-step post", async () => {
  assert.ok(CONTINUED_STEPS >= 1);
  const d = await dueDelivery("continued");
  const lanes = new DeliveryLanes(app.ctx, 2);
  assert.ok(lanes.start(d, undefined));
  assert.equal(lanes.runningOn("x"), 1);
  await lanes.drain();
  assert.equal(await status(d.id), "published");
  assert.equal(lanes.runningOn("x"), 0, "the place is free once the delivery needs no step at once");
});

test("once the loop is stopping, no step follows the one under way", async () => {
  const d = await dueDelivery("stopping");
  const lanes = new DeliveryLanes(app.ctx, 2);
  const stop = new AbortController();
  stop.abort();
  assert.ok(lanes.start(d, undefined, stop.signal));
  await lanes.drain();
  assert.equal(await status(d.id), "processing", "uploaded, its post left for the next start");
});
