/**
 * TikTok's init budget (6 calls in any 60 seconds per user access token, a sliding window with no header
 * saying when a call is free: src/providers/social/tiktok/publisher.ts `INIT_WINDOW`): an account whose
 * starts on record (`deliveries.started_at`, src/domain/social/start-window.ts) fill the window sends no
 * init and waits until its oldest start leaves it; an init refused all the same (another worker's start
 * landed meanwhile) waits the same way, not a whole minute from the refusal; with fewer starts on record
 * than the budget (spent by another client of the token), the network's minute. `started_at` is set once,
 * by the step that takes a delivery out of `pending`.
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

/** Runs once at the next init, before it is answered 429: another worker's start landing meanwhile. */
let beforeRefusal: (() => Promise<void>) | undefined;
server.wrap(TT_API_HOST, async (req, next) => {
  const race = beforeRefusal;
  if (!race || req.method !== "POST" || req.path !== INIT.path) return next();
  beforeRefusal = undefined;
  await race();
  return { status: TOO_MANY.status, body: TOO_MANY.body };
});
const inits = () => server.hitsFor(TT_API_HOST, INIT.path, "POST").length;

/** Steps the first `n` of `ids`, 5 s apart on the service's clock; the first one's start, ms. */
async function startEach(ids: string[], n: number): Promise<number> {
  for (const id of ids.slice(0, n)) {
    assert.equal((await step(id)).state, "uploading", "init answered, the upload is next");
    clock.advance(5);
  }
  return new Date((await row(ids[0]!)).started_at).getTime();
}

/** Asserts `id` waits until `first` + 60 s (to the second) and reported that wait. */
async function waitsForWindow(id: string, first: number, stops: UsageStop[], error: RegExp) {
  const after = await row(id);
  assert.equal(after.status, "pending");
  assert.equal(after.started_at, null, "nothing started");
  const due = new Date(after.next_attempt_at).getTime();
  assert.ok(
    due >= first + 60_000 && due <= first + 62_000,
    `due when the first start leaves the minute (${due - first} ms after it)`,
  );
  assert.equal(stops.length, 1);
  const [stop] = stops;
  assert.deepEqual([stop!.scope, stop!.startsOnly], ["token", true]);
  assert.equal(stop!.seconds, Math.round((due - after.updated_at.getTime()) / 1000), String(stop!.seconds));
  assert.match(after.error, error);
  assert.ok(after.error.includes(`waiting ${stop!.seconds} s`), after.error);
}

test("an account whose starts fill the window starts no post until its oldest start leaves it, without a call", async () => {
  const account = await connectCreator(owner, tt.addCreator({ username: "six.a.minute" }));
  const ids = await pendingDeliveries(account, 8);
  const first = await startEach(ids, 6);
  const sixth = new Date((await row(ids[5]!)).started_at).getTime();
  assert.ok(sixth - first >= 25_000, "one init every 5 s on the service's clock");

  // The upload of a started post leaves its start as it was.
  assert.equal((await step(ids[0]!)).state, "processing");
  assert.equal(new Date((await row(ids[0]!)).started_at).getTime(), first);

  const before = inits();
  const held = await step(ids[6]!);
  assert.equal(held.state, "pending");
  assert.equal(inits(), before, "no init sent: TikTok would refuse it");
  await waitsForWindow(
    ids[6]!,
    first,
    held.stops,
    /^waiting \d+ s: TikTok takes at most 6 new posts from an account in 60 s, and this account started 6$/,
  );
});

test("an init refused because another worker's start filled the window meanwhile waits for the window's oldest start", async () => {
  const account = await connectCreator(owner, tt.addCreator({ username: "raced" }));
  const ids = await pendingDeliveries(account, 7);
  const first = await startEach(ids, 5);
  // Five starts on record: this worker sends the init; the sixth start (another worker's) lands first.
  beforeRefusal = async () => {
    await app.ctx
      .db("deliveries")
      .where({ id: ids[5]! })
      .update({ status: "uploading", started_at: clock.now() });
  };
  const refusedAt = clock.now().getTime();
  const refused = await step(ids[6]!);
  assert.equal(beforeRefusal, undefined, "the init was sent and refused");
  assert.equal(refused.state, "pending");
  await waitsForWindow(ids[6]!, first, refused.stops, /^rate limited by the network: waiting \d+ s$/);
  const due = new Date((await row(ids[6]!)).next_attempt_at).getTime();
  assert.ok(due < refusedAt + 60_000, "sooner than a minute from the refusal");
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
