/**
 * Publishing at the same minute (docs/operations.md "The delivery loop"; src/domain/social/engine.ts
 * `runDueDeliveries`): due deliveries are picked round-robin across networks and each network is stepped in
 * its own lane, so a slow network does not hold the others; two workers' passes at once publish each delivery
 * exactly once. The networks here are two in-test publishers (one step: the post): "slow" waits on a gate the
 * test opens, "fast" answers at once; a real network's steps are in
 * test/providers/social/engine.state.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectSocialAccount } from "../../src/domain/social/accounts.ts";
import { runDueDeliveries } from "../../src/domain/social/engine.ts";
import type { DeliveryJob, NetworkAdapter, NetworkRegistry } from "../../src/providers/social/network.ts";
import type { Network } from "../../src/providers/social/types.ts";
import { startTestApp } from "../helpers/app.ts";
import { waitFor } from "../operations/helpers.ts";
import { textPost } from "../tools/carousels/fixtures.ts";

/** Posts made per delivery, and the gate the slow network waits on. */
const posted = new Map<string, number>();
let openGate: () => void = () => {};
let gate = new Promise<void>((resolve) => {
  openGate = resolve;
});

/** Run at the start of each step of the network "pinterest" (the last test). */
let onPinterestStep: () => Promise<void> = async () => {};

function publisherOf(network: Network, slow: boolean): NetworkAdapter {
  return {
    network,
    mode: "live",
    oauth: {
      pkce: true,
      requiredScopes: [],
      refreshAheadSeconds: 0,
      authorizeUrl: () => "https://auth.test.example/authorize",
      exchangeCode: async () => ({ accessToken: "a", scopes: [] }),
      refresh: async (t) => t,
      accounts: async () => [],
    },
    publisher: {
      async step(job: DeliveryJob) {
        if (slow) await gate;
        if (network === "pinterest") await onPinterestStep();
        posted.set(job.delivery.id, (posted.get(job.delivery.id) ?? 0) + 1);
        return {
          state: "published",
          postUrl: `https://${network}.test.example/${job.delivery.id}`,
          networkPostId: job.delivery.id,
        };
      },
      async reconcile() {
        return { state: "not_created" };
      },
    },
  } as NetworkAdapter;
}

const SLOW: Network = "linkedin";
const FAST: Network = "x";
const adapters = {
  [SLOW]: publisherOf(SLOW, true),
  [FAST]: publisherOf(FAST, false),
  pinterest: publisherOf("pinterest", false),
} as Record<Network, NetworkAdapter>;
const networks: NetworkRegistry = { adapter: (n) => adapters[n]!, forAccount: (n) => adapters[n]! };
const app = await startTestApp({ queue: false, providers: { networks } });
const me = await app.user();
const owner = { userId: me.user_id, workspaceId: me.workspace_id };

async function liveAccount(network: Network) {
  const a = await connectSocialAccount(app.ctx.db, app.ctx.sealer, owner, {
    network,
    displayName: network,
    handle: `${network}_fair`,
    mode: "live",
    networkAccountId: `${network}-fair`,
    accessToken: `token-${network}`,
    scopes: [],
  });
  return a.social_account_id;
}

/** `n` deliveries due on `accountId`, due `ageSeconds` ago (older first in the old order). */
async function due(accountId: string, n: number, ageSeconds: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const postId = await textPost(app, me, "Same minute");
    const [row] = await app.ctx
      .db("deliveries")
      .insert({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        post_id: postId,
        social_account_id: accountId,
        status: "pending",
        next_attempt_at: new Date(Date.now() - (ageSeconds + n - i) * 1000),
      })
      .returning("id");
    ids.push(row.id);
  }
  return ids;
}

const statusOf = async (ids: string[]) =>
  (await app.ctx.db("deliveries").whereIn("id", ids).select("status")).map((r) => r.status as string);

test("a slow network does not hold the others: the fast one publishes while the slow one is still stepping", async () => {
  const slowIds = await due(await liveAccount(SLOW), 5, 600); // due first
  const fastIds = await due(await liveAccount(FAST), 5, 60);
  // Two workers' passes at the same minute.
  const passes = Promise.all([runDueDeliveries(app.ctx), runDueDeliveries(app.ctx)]);
  await waitFor(
    () => statusOf(fastIds),
    (s) => s.every((x) => x === "published"),
  );
  assert.ok(
    (await statusOf(slowIds)).every((s) => s !== "published"),
    "the slow network is still held at its gate",
  );
  openGate();
  await passes;
  await waitFor(
    () => statusOf(slowIds),
    (s) => s.every((x) => x === "published"),
  );
  for (const id of [...slowIds, ...fastIds]) assert.equal(posted.get(id), 1, "exactly one post per delivery");
});

test("the pass's limit is shared round-robin between the networks that have due deliveries", async () => {
  gate = Promise.resolve();
  const slowIds = await due(await liveAccount(SLOW), 4, 900);
  const fastIds = await due(await liveAccount(FAST), 4, 30);
  assert.equal(await runDueDeliveries(app.ctx, 4), 4);
  assert.equal((await statusOf(slowIds)).filter((s) => s === "published").length, 2);
  assert.equal((await statusOf(fastIds)).filter((s) => s === "published").length, 2);
});

test("a delivery whose account another worker's step held is tried again once the lane has stepped the others", async () => {
  const held = await liveAccount("pinterest");
  const heldIds = await due(held, 1, 1200); // the lane's first
  const freeAccount = (
    await connectSocialAccount(app.ctx.db, app.ctx.sealer, owner, {
      network: "pinterest",
      displayName: "pinterest 2",
      handle: "pinterest_fair_2",
      mode: "live",
      networkAccountId: "pinterest-fair-2",
      accessToken: "token-pinterest-2",
      scopes: [],
    })
  ).social_account_id;
  const freeIds = await due(freeAccount, 1, 1100);
  // Another worker's step of the first account holds its lease until the lane steps the second account.
  await app.ctx.db("delivery_account_leases").insert({
    social_account_id: held,
    holder: "00000000-0000-4000-8000-000000000001",
    locked_until: new Date(Date.now() + 60_000),
  });
  onPinterestStep = async () => {
    await app.ctx.db("delivery_account_leases").where({ social_account_id: held }).delete();
  };
  await runDueDeliveries(app.ctx, 50); // with the earlier tests' 4 left (the limit's test)
  assert.deepEqual(await statusOf(freeIds), ["published"]);
  assert.deepEqual(await statusOf(heldIds), ["published"], "tried again in the same pass");
  for (const id of [...heldIds, ...freeIds]) assert.equal(posted.get(id), 1);
});
