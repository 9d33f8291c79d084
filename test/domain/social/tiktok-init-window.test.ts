/**
 * TikTok's init budget (6 calls in any 60 seconds per user access token, a sliding window with no header
 * saying when a call is free: src/providers/social/tiktok/publisher.ts `INIT_WINDOW`) refused: the delivery
 * and the account's other posts not started yet wait until the account's oldest init of the last minute on
 * record (`deliveries.started_at`, src/domain/social/start-window.ts) leaves the window, not a whole minute
 * from the refusal; with fewer inits on record than the budget (spent by another client of the token), the
 * network's minute. `started_at` is set once, by the step that takes a delivery out of `pending`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runDeliveryStep } from "../../../src/domain/social/engine.ts";
import { observeUsage, type UsageStop } from "../../../src/providers/social/usage.ts";
import { TT_API_HOST } from "../../fakes/tiktok.ts";
import type { TestClock } from "../../helpers/app.ts";
import { reviewWorld } from "../../web/review-fixtures.ts";

const { server, tt, app, connectCreator, videoPost } = await reviewWorld();
const clock = app.ctx.clock as TestClock;
const me = await app.user({ plan: "pro" });
const owner = { userId: me.user_id, workspaceId: me.workspace_id };
const INIT = { host: TT_API_HOST, path: "/v2/post/publish/video/init/", method: "POST" };
const TOO_MANY = {
  kind: "status" as const,
  status: 429,
  body: { data: {}, error: { code: "rate_limit_exceeded", message: "slow down", log_id: "x" } },
};

/** `n` due TikTok video deliveries of `accountId`, not started (`pending`). */
async function pendingDeliveries(accountId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const postId = await videoPost(owner, `Clip ${i + 1}`);
    const [row] = await app.ctx
      .db("deliveries")
      .insert({
        user_id: me.user_id,
        workspace_id: me.workspace_id,
        post_id: postId,
        social_account_id: accountId,
        status: "pending",
        options: JSON.stringify({ privacy_level: "PUBLIC_TO_EVERYONE", title: `Clip ${i + 1}` }),
      })
      .returning("id");
    ids.push(row.id);
  }
  return ids;
}

const row = (id: string) => app.ctx.db("deliveries").where({ id }).first();

/** Steps `id` observing usage: its state and the stops it reported. */
async function step(id: string): Promise<{ state: string | undefined; stops: UsageStop[] }> {
  const stops: UsageStop[] = [];
  const state = await observeUsage(
    (s) => {
      stops.push(s);
      return false;
    },
    () => runDeliveryStep(app.ctx, id),
  );
  return { state, stops };
}

test("a refused init waits until the account's oldest init of the last minute leaves the window", async () => {
  const account = await connectCreator(owner, tt.addCreator({ username: "six.a.minute" }));
  const ids = await pendingDeliveries(account, 8);
  for (const id of ids.slice(0, 6)) {
    assert.equal((await step(id)).state, "uploading", "init answered, the upload is next");
    clock.advance(5);
  }
  const first = new Date((await row(ids[0]!)).started_at).getTime();
  const sixth = new Date((await row(ids[5]!)).started_at).getTime();
  assert.ok(sixth - first >= 25_000, "one init every 5 s on the service's clock");

  // The upload of a started post leaves its start as it was.
  assert.equal((await step(ids[0]!)).state, "processing");
  assert.equal(new Date((await row(ids[0]!)).started_at).getTime(), first);

  server.fault(INIT, TOO_MANY);
  const refusedAt = clock.now().getTime();
  const refused = await step(ids[6]!);
  assert.equal(refused.state, "pending", "nothing started");
  const after = await row(ids[6]!);
  assert.equal(after.started_at, null);
  const due = new Date(after.next_attempt_at).getTime();
  assert.ok(
    due >= first + 60_000 && due <= first + 62_000,
    `due when the first init leaves the minute (${due - first} ms after it)`,
  );
  assert.ok(due < refusedAt + 60_000, "sooner than a minute from the refusal");
  assert.equal(refused.stops.length, 1);
  const [stop] = refused.stops;
  assert.deepEqual([stop!.scope, stop!.startsOnly], ["token", true]);
  assert.equal(stop!.seconds, Math.round((due - after.updated_at.getTime()) / 1000), String(stop!.seconds));
  assert.match(after.error, new RegExp(`^rate limited by the network: waiting ${stop!.seconds} s$`));
});

test("with fewer inits on record than the budget, a refused init waits the network's minute", async () => {
  const account = await connectCreator(owner, tt.addCreator({ username: "shared.token" }));
  const [id] = await pendingDeliveries(account, 1);
  server.fault(INIT, TOO_MANY);
  const refused = await step(id!);
  assert.equal(refused.state, "pending");
  assert.equal(refused.stops[0]?.seconds, 60, "the init budget's window, as TikTok states no wait");
  const after = await row(id!);
  assert.equal(new Date(after.next_attempt_at).getTime() - after.updated_at.getTime(), 60_000);
});
