/**
 * The workers' delivery loop (src/operations/deliveries.ts; docs/operations.md "The delivery loop"): two
 * loops side by side publish every due delivery exactly once on the X fake (test/fakes/x.ts, `POST
 * /2/tweets`, each call slowed by 20 ms), taking full passes back to back, and a loop stops on its abort
 * signal, both while it waits for the next poll and while a step is under way (that step finishes, no other
 * starts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { runDeliveryLoop } from "../../src/operations/deliveries.ts";
import { startTestApp } from "../helpers/app.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { connectedXAccount, X_API_HOST, xFake } from "../fakes/x.ts";
import { waitFor } from "./helpers.ts";

const server = await startFakeNetworks();
const x = xFake(server, FAKE_APPS.x);
const app = await startTestApp({ queue: false, env: liveNetworkEnv(server, ["x"]) });
const me = await app.user();

/** A live X account on the fake. */
async function xAccount(name: string): Promise<string> {
  const user = x.addUser({ username: name });
  const { account } = await upsertConnectedAccount(
    app.ctx.db,
    app.ctx.sealer,
    { userId: me.user_id, workspaceId: me.workspace_id },
    connectedXAccount(user),
  );
  return account.social_account_id;
}

/** `n` text posts due now on `accounts` (round-robin), captions `{prefix} {i}`; their delivery ids. */
async function dueDeliveries(accounts: string[], n: number, prefix: string): Promise<string[]> {
  const posts = await app.ctx
    .db("posts")
    .insert(
      Array.from({ length: n }, (_, i) => ({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        type: "text",
        status: "approved",
        caption: `${prefix} ${i}`,
      })),
    )
    .returning("id");
  const rows = await app.ctx
    .db("deliveries")
    .insert(
      posts.map((p, i) => ({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        post_id: p.id,
        social_account_id: accounts[i % accounts.length],
        status: "pending",
        next_attempt_at: new Date(Date.now() - 1000),
      })),
    )
    .returning("id");
  return rows.map((r) => r.id as string);
}

const statuses = async (ids: string[]) =>
  (await app.ctx.db("deliveries").whereIn("id", ids).select("status")).map((r) => r.status as string);

/** Posts X holds per caption starting with `prefix`. */
function postsPerCaption(prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of x.tweets.values())
    if (t.sent.startsWith(prefix)) out.set(t.sent, (out.get(t.sent) ?? 0) + 1);
  return out;
}

test("two workers' loops publish every due delivery exactly once, then stop on abort", async () => {
  server.fault({ host: X_API_HOST, path: /^\/2\/tweets$/, times: 1000 }, { kind: "slow", delayMs: 20 });
  const accounts = [await xAccount("loop_a"), await xAccount("loop_b"), await xAccount("loop_c")];
  const N = 45;
  const ids = await dueDeliveries(accounts, N, "Loop post");
  const stop = new AbortController();
  // Passes of 10: the loops must take full passes back to back to reach all 45 within one poll.
  const loops = [1, 2].map(() => runDeliveryLoop(app.ctx, { signal: stop.signal, pollSeconds: 30 }));
  await waitFor(
    () => statuses(ids),
    (s) => s.length === N && s.every((v) => v === "published"),
    60_000,
  );
  stop.abort();
  await Promise.all(loops); // resolves: the loops stopped (a hang here fails the test by its timeout)
  const made = postsPerCaption("Loop post");
  assert.equal(made.size, N, "one post per delivery");
  for (const [caption, n] of made) assert.equal(n, 1, `${caption} was posted ${n} times`);
  server.clearFaults();
});

test("a loop stops on abort while waiting for its next poll", async () => {
  const stop = new AbortController();
  const started = Date.now();
  const loop = runDeliveryLoop(app.ctx, { signal: stop.signal, pollSeconds: 60 });
  // Nothing is due: the loop's first pass ends and it waits up to 60 s; abort cuts the wait.
  await new Promise((r) => setImmediate(r));
  stop.abort();
  await loop;
  assert.ok(Date.now() - started < 30_000, "the loop did not wait out its poll interval");
});

test("a loop aborted during a step finishes that step and starts no other", async () => {
  const account = await xAccount("loop_abort");
  // Every post call takes 1.5 s, long enough to abort the loop while the first is under way.
  server.fault({ host: X_API_HOST, path: /^\/2\/tweets$/, times: 1000 }, { kind: "slow", delayMs: 1500 });
  const ids = await dueDeliveries([account], 5, "Abort post");
  const stop = new AbortController();
  const loop = runDeliveryLoop(app.ctx, { signal: stop.signal, pollSeconds: 30 });
  // Wait until the first step holds its lease (the post call is under way), then abort.
  await waitFor(
    () => app.ctx.db("deliveries").whereIn("id", ids).whereNotNull("step_started_at").count({ n: "*" }),
    (r) => Number(r[0]?.n) >= 1,
  );
  stop.abort();
  await loop;
  const s = await statuses(ids);
  assert.equal(s.filter((v) => v === "published").length, 1, "the step under way finished");
  assert.equal(s.filter((v) => v === "pending").length, 4, "no other step started");
  server.clearFaults();
});
