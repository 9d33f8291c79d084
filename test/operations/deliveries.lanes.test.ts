/**
 * The bounds of the delivery lanes (src/operations/deliveries.ts, ./delivery-lanes.ts; docs/operations.md
 * "The delivery loop"), with the X and Facebook fakes (test/fakes/) and the real database, counted at the
 * fakes, not timed:
 * - one loop with `concurrency` 3 on eight X accounts with three due posts each runs exactly 3 steps at
 *   once at X, never two of one account;
 * - two loops (two workers) never run two steps of one account at once either (the account lease), and
 *   publish each delivery once;
 * - Facebook saying the app's budget is spent (`X-App-Usage` at 100 on a 2xx, then code 4: Meta's app
 *   limit, https://developers.facebook.com/docs/graph-api/overview/rate-limiting) pauses the Facebook lane on
 *   every worker (no further Facebook create), while X goes on at its full concurrency and publishes all;
 * - the look-up takes a delivery already under way before a new one, one per account.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { FACEBOOK, FACEBOOK_CAPABILITIES } from "../../src/providers/social/facebook/table.ts";
import { pickLaneDeliveries } from "../../src/domain/social/lanes-pick.ts";
import { runDeliveryLoop } from "../../src/operations/deliveries.ts";
import { FB_GRAPH_HOST, facebookFake } from "../fakes/facebook.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { connectedXAccount, X_API_HOST, xFake } from "../fakes/x.ts";
import { startTestApp } from "../helpers/app.ts";
import { waitFor } from "./helpers.ts";

const server = await startFakeNetworks();
const x = xFake(server, FAKE_APPS.x);
const fb = facebookFake(server, FAKE_APPS.facebook);
const app = await startTestApp({ queue: false, env: liveNetworkEnv(server, ["x", "facebook"]) });
const me = await app.user();
const owner = { userId: me.user_id, workspaceId: me.workspace_id };

/**
 * Steps in flight at X's create, in all and per account (its token), and the most seen of each. Each create
 * answers after `xLatencyMs`, and not before `xGather` creates are in flight (or 1 s passed): the lanes' full
 * concurrency is then seen whatever the machine's speed.
 */
let xLatencyMs = 0;
let xGather = 1;
const inFlight = { all: 0, maxAll: 0, perToken: new Map<string, number>(), maxPerToken: 0 };
server.wrap(X_API_HOST, async (req, next) => {
  const token = req.token() ?? "";
  const creates = req.method === "POST" && req.path === "/2/tweets";
  if (!creates) return next();
  inFlight.all += 1;
  inFlight.maxAll = Math.max(inFlight.maxAll, inFlight.all);
  const mine = (inFlight.perToken.get(token) ?? 0) + 1;
  inFlight.perToken.set(token, mine);
  inFlight.maxPerToken = Math.max(inFlight.maxPerToken, mine);
  try {
    await new Promise((r) => setTimeout(r, xLatencyMs));
    for (let waited = 0; inFlight.all < xGather && waited < 1000; waited += 5)
      await new Promise((r) => setTimeout(r, 5));
    return await next();
  } finally {
    inFlight.all -= 1;
    inFlight.perToken.set(token, (inFlight.perToken.get(token) ?? 1) - 1);
  }
});
const resetInFlight = () => {
  inFlight.maxAll = 0;
  inFlight.maxPerToken = 0;
};

async function xAccount(name: string): Promise<string> {
  const { account } = await upsertConnectedAccount(
    app.ctx.db,
    app.ctx.sealer,
    owner,
    connectedXAccount(x.addUser({ username: name })),
  );
  return account.social_account_id;
}

/** A Facebook Page connected as the connect flow leaves it (its Page token). */
async function facebookPage(name: string): Promise<string> {
  const page = fb.addUser({ name, pages: [`${name} Page`] }).pages[0]!;
  const tokens = { accessToken: page.accessToken, scopes: [...FACEBOOK.oauth.scopes] };
  const { account } = await upsertConnectedAccount(app.ctx.db, app.ctx.sealer, owner, {
    network: "facebook",
    mode: "live",
    account: {
      networkAccountId: page.id,
      handle: page.name,
      displayName: page.name,
      tokens,
      capabilities: FACEBOOK_CAPABILITIES,
    },
    tokens,
    now: new Date(),
  });
  return account.social_account_id;
}

/** `perAccount` text posts due now on each of `accounts`, captions `{prefix} {account} {k}`. */
async function due(accounts: string[], perAccount: number, prefix: string): Promise<string[]> {
  const plan = accounts.flatMap((a, i) => Array.from({ length: perAccount }, (_, k) => ({ a, i, k })));
  const posts = await app.ctx
    .db("posts")
    .insert(
      plan.map((p) => ({
        ...{ workspace_id: me.workspace_id, user_id: me.user_id },
        type: "text",
        status: "approved",
        caption: `${prefix} ${p.i} ${p.k}`,
      })),
    )
    .returning("id");
  const rows = await app.ctx
    .db("deliveries")
    .insert(
      posts.map((p, j) => ({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        post_id: p.id,
        social_account_id: plan[j]!.a,
        status: "pending",
        next_attempt_at: new Date(Date.now() - 1000),
      })),
    )
    .returning("id");
  return rows.map((r) => r.id as string);
}

const statuses = async (ids: string[]) =>
  (await app.ctx.db("deliveries").whereIn("id", ids).select("status")).map((r) => r.status as string);
const allPublished = (s: string[]) => s.length > 0 && s.every((v) => v === "published");

/** X posts per caption starting with `prefix`. */
function xPostsPerCaption(prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of x.tweets.values())
    if (t.sent.startsWith(prefix)) out.set(t.sent, (out.get(t.sent) ?? 0) + 1);
  return out;
}

async function runLoops(n: number, concurrency: number, until: () => Promise<void>): Promise<void> {
  const stop = new AbortController();
  const loops = Array.from({ length: n }, () =>
    runDeliveryLoop(app.ctx, { signal: stop.signal, pollSeconds: 30, concurrency }),
  );
  try {
    await until();
  } finally {
    stop.abort();
    await Promise.all(loops);
  }
}

test("one worker runs at most `concurrency` steps on a network at once, never two of one account", async () => {
  xLatencyMs = 20;
  xGather = 3;
  resetInFlight();
  const accounts = await Promise.all(Array.from({ length: 8 }, (_, i) => xAccount(`lane_one_${i}`)));
  const ids = await due(accounts, 3, "One worker");
  await runLoops(1, 3, () => waitFor(() => statuses(ids), allPublished, 60_000).then(() => {}));
  assert.equal(inFlight.maxAll, 3, "the lane ran exactly 3 steps at once at its fullest");
  assert.equal(inFlight.maxPerToken, 1, "never two steps of one account at once");
  const made = xPostsPerCaption("One worker");
  assert.equal(made.size, 24);
  for (const [caption, n] of made) assert.equal(n, 1, `${caption} was posted ${n} times`);
});

test("two workers never step one account twice at once and publish each delivery once", async () => {
  xLatencyMs = 20;
  xGather = 3;
  resetInFlight();
  // Three accounts with five posts each: two workers of 4 places each would run all three accounts'
  // deliveries side by side if the account lease did not hold them one at a time.
  const accounts = await Promise.all(Array.from({ length: 3 }, (_, i) => xAccount(`lane_two_${i}`)));
  const ids = await due(accounts, 5, "Two workers");
  await runLoops(2, 4, () => waitFor(() => statuses(ids), allPublished, 60_000).then(() => {}));
  assert.equal(inFlight.maxPerToken, 1, "never two steps of one account at once, across workers");
  assert.equal(inFlight.maxAll, 3, "one step per account at once, all three accounts side by side");
  const made = xPostsPerCaption("Two workers");
  assert.equal(made.size, 15);
  for (const [caption, n] of made) assert.equal(n, 1, `${caption} was posted ${n} times`);
  assert.equal(
    Number((await app.ctx.db("delivery_account_leases").count({ n: "*" }))[0]?.n),
    0,
    "every account lease was given back",
  );
});

test("Facebook's app limit pauses only the Facebook lane; X goes on at full concurrency", async () => {
  xLatencyMs = 20;
  xGather = 4;
  resetInFlight();
  // The Graph app's hourly budget: the third call answers 200 with X-App-Usage at 100 (Meta's stop).
  fb.graphUsage.reset();
  fb.graphUsage.appLimit = 3;
  const pages = await Promise.all(Array.from({ length: 6 }, (_, i) => facebookPage(`Lane ${i}`)));
  const fbIds = await due(pages, 2, "Paused lane");
  const xAccounts = await Promise.all(Array.from({ length: 6 }, (_, i) => xAccount(`lane_free_${i}`)));
  const xIds = await due(xAccounts, 4, "Free lane");
  const fbBefore = fb.publishes;
  await runLoops(2, 2, async () => {
    await waitFor(() => statuses(xIds), allPublished, 60_000);
    // The Facebook lane stays paused: nothing more reaches Facebook while the stop lasts.
    const stopped = await app.ctx.db("delivery_network_stops").where({ network: "facebook" }).first();
    assert.ok(stopped, "the Facebook lane is paused for every worker");
    assert.ok(new Date(stopped.until).getTime() > Date.now() + 3000_000, "until the app's hour is over");
    assert.match(stopped.reason, /X-App-Usage call_count 100%/);
  });
  const fbCalls = server.hitsFor(FB_GRAPH_HOST, /\/feed$/, "POST").length;
  // A create answered before a refusal of the step's next call is kept (its post id saved): never made again.
  const fbRows: Array<{ status: string; network_ids: { postId?: string } }> = await app.ctx
    .db("deliveries")
    .whereIn("id", fbIds)
    .select("status", "network_ids");
  const created = fbRows.filter((r) => r.network_ids?.postId).length;
  assert.equal(fb.publishes - fbBefore, created, "one Page post per delivery that created one");
  assert.ok(
    fbCalls <= 4,
    `only the creates in flight when the stop came (2 workers x 2 places) reached Facebook: ${fbCalls}`,
  );
  assert.ok(
    (await statuses(fbIds)).every((s) => s === "published" || s === "pending"),
    "the paused deliveries wait, none failed",
  );
  assert.equal(inFlight.maxAll, 4, "X ran its two workers' full 2 + 2 steps at once");
  const made = xPostsPerCaption("Free lane");
  assert.equal(made.size, 24);
  for (const [caption, n] of made) assert.equal(n, 1, `${caption} was posted ${n} times`);
});

test("the lanes take a delivery under way before a new one, per account and per network", async () => {
  const [a, b] = [await xAccount("lane_order_a"), await xAccount("lane_order_b")];
  const [newOnA] = await due([a], 1, "Order new");
  const [underWayOnA, underWayOnB] = await due([a, b], 1, "Order started");
  const [olderNewOnB] = await due([b], 1, "Order older");
  const at = (s: number) => new Date(Date.now() - s * 1000);
  await app.ctx
    .db("deliveries")
    .where({ id: newOnA })
    .update({ next_attempt_at: at(600) });
  await app.ctx
    .db("deliveries")
    .where({ id: olderNewOnB })
    .update({ next_attempt_at: at(900) });
  await app.ctx
    .db("deliveries")
    .whereIn("id", [underWayOnA!, underWayOnB!])
    .update({ status: "uploading", next_attempt_at: at(1) });
  const one = await pickLaneDeliveries(app.ctx, new Map([["x", 1]]), []);
  assert.equal(one.length, 1);
  assert.ok([underWayOnA, underWayOnB].includes(one[0]!.id), "a delivery under way, not an older new one");
  const two = await pickLaneDeliveries(app.ctx, new Map([["x", 2]]), []);
  assert.deepEqual(two.map((d) => d.id).sort(), [underWayOnA!, underWayOnB!].sort(), "one per account");
  const notA = await pickLaneDeliveries(app.ctx, new Map([["x", 2]]), [a]);
  assert.deepEqual(
    notA.map((d) => d.id),
    [underWayOnB],
    "an account busy here is left out",
  );
  await app.ctx.db("deliveries").whereIn("id", [newOnA!, underWayOnA!, underWayOnB!, olderNewOnB!]).delete();
});
