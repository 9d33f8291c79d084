/**
 * The delivery engine's state machine (src/domain/social/engine.ts) with a tiny in-test adapter that keeps
 * a network's state in memory (created containers, published posts) and can be told to fail: saved ids,
 * resuming after a worker dies between or inside steps (no second create), Retry-After, backoff,
 * outcome_unknown and reconcile, needs_reconnect on auth errors only, the publishing limit, and token
 * refresh before expiry.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rowBinding } from "../../../src/crypto/seal.ts";
import { connectSocialAccount } from "../../../src/domain/social/accounts.ts";
import { advanceDeliveries, runDeliveryStep, runDueDeliveries } from "../../../src/domain/social/engine.ts";
import { refreshExpiringTokens } from "../../../src/domain/social/refresh.ts";
import {
  type DeliveryJob,
  type NetworkAdapter,
  NetworkAuthError,
  NetworkRateLimitError,
  type NetworkRegistry,
  NetworkTransientError,
  type SaveIds,
  type TokenSet,
} from "../../../src/providers/social/network.ts";
import { sandboxAdapter } from "../../../src/providers/social/sandbox/sandbox.ts";
import type { Network } from "../../../src/providers/social/types.ts";
import { TestClock } from "../../helpers/app.ts";
import { textPost } from "../../tools/carousels/fixtures.ts";
import { startTestApp } from "../../helpers/app.ts";

/** What the in-test network remembers, and the faults it is told to produce next. */
const net = {
  containers: new Map<string, { delivery: string }>(),
  published: [] as string[],
  creates: 0,
  refreshes: 0,
  fail: [] as Array<"auth" | "rate" | "transient" | "lost-create" | "refresh-auth" | "refresh-5xx">,
  quota: undefined as { used: number; limit: number } | undefined,
};
const nextFault = (kind: (typeof net.fail)[number]) => {
  const i = net.fail.indexOf(kind);
  if (i === -1) return false;
  net.fail.splice(i, 1);
  return true;
};

/** A two-step network: create a container (saved at once), then publish it. */
const testAdapter: NetworkAdapter = {
  network: "instagram",
  mode: "live",
  oauth: {
    pkce: true,
    requiredScopes: ["publish"],
    refreshAheadSeconds: 3600,
    authorizeUrl: () => "https://auth.test.example/authorize",
    exchangeCode: async () => ({ accessToken: "a", scopes: ["publish"] }),
    async refresh(tokens: TokenSet) {
      if (nextFault("refresh-auth")) throw new NetworkAuthError("refresh token revoked");
      if (nextFault("refresh-5xx")) throw new NetworkTransientError("HTTP 503");
      net.refreshes += 1;
      return {
        accessToken: `fresh-${net.refreshes}`,
        expiresAt: new Date(clock.now().getTime() + 86_400_000),
        scopes: tokens.scopes,
      };
    },
    accounts: async () => [],
  },
  publisher: {
    async step(job: DeliveryJob, save: SaveIds) {
      if (nextFault("auth")) throw new NetworkAuthError("the access token was revoked");
      if (nextFault("rate")) throw new NetworkRateLimitError("HTTP 429", 120);
      if (nextFault("transient")) throw new NetworkTransientError("HTTP 502");
      const container = job.delivery.networkIds.container_id as string | undefined;
      if (!container) {
        net.creates += 1;
        const id = `c-${net.creates}`;
        net.containers.set(id, { delivery: job.delivery.id });
        if (nextFault("lost-create")) throw new NetworkTransientError("connection reset", true);
        await save({ container_id: id });
        return { state: "processing", pollAfterSeconds: 0 };
      }
      net.published.push(container);
      return {
        state: "published",
        postUrl: `https://network.test.example/p/${container}`,
        networkPostId: container,
      };
    },
    async reconcile(job: DeliveryJob, save: SaveIds) {
      const found = [...net.containers.entries()].find(([, c]) => c.delivery === job.delivery.id);
      if (!found) return { state: "not_created" };
      if (!job.delivery.networkIds.container_id) await save({ container_id: found[0] });
      return { state: "processing", pollAfterSeconds: 0 };
    },
    async publishingLimit() {
      return net.quota ? { ...net.quota, windowSeconds: 86_400 } : undefined;
    },
  },
};

// Waits on it pass at once and move it (advanceDeliveries below); the steps' own times are read from it.
const clock = new TestClock({ skipWaits: true });
let deps: Parameters<typeof sandboxAdapter>[1];
const networks: NetworkRegistry = {
  adapter: (n: Network) => (n === "instagram" ? testAdapter : sandboxAdapter(n, deps)),
  forAccount: (n: Network, mode) => (mode === "live" ? testAdapter : sandboxAdapter(n, deps)),
};
const app = await startTestApp({ queue: false, clock, providers: { networks } });
deps = {
  publicBaseUrl: app.url,
  sealer: app.ctx.sealer,
  now: () => clock.now(),
  http: app.ctx.providers.socialHttp,
};
const me = await app.user();
const owner = { userId: me.user_id, workspaceId: me.workspace_id };

async function liveAccount(name: string, expiresInSeconds = 86_400) {
  const a = await connectSocialAccount(app.ctx.db, app.ctx.sealer, owner, {
    network: "instagram",
    displayName: name,
    handle: name.toLowerCase().replace(/\s/g, "_"),
    mode: "live",
    networkAccountId: `ig-${name}`,
    accessToken: `token-${name}`,
    refreshToken: `refresh-${name}`,
    expiresAt: new Date(clock.now().getTime() + expiresInSeconds * 1000),
    scopes: ["publish"],
  });
  return a.social_account_id;
}

async function delivery(accountId: string): Promise<string> {
  const postId = await textPost(app, me, "Engine test");
  const [row] = await app.ctx
    .db("deliveries")
    .insert({
      ...{ workspace_id: me.workspace_id, user_id: me.user_id },
      post_id: postId,
      social_account_id: accountId,
      status: "pending",
    })
    .returning("id");
  return row.id;
}
const read = (id: string) => app.ctx.db("deliveries").where({ id }).first();

test("each step is persisted with its network ids; a fresh engine resumes from them without a second create", async () => {
  const account = await liveAccount("Resume");
  const id = await delivery(account);
  const creates = net.creates;
  assert.equal(await runDeliveryStep(app.ctx, id), "processing");
  const saved = await read(id);
  assert.equal(saved.status, "processing");
  assert.equal(saved.network_ids.container_id, `c-${creates + 1}`, "the container id is saved at once");
  assert.equal(saved.locked_until, null);
  // The worker is gone; another one (a fresh call, nothing in memory) continues from the saved row.
  assert.equal(await runDueDeliveries(app.ctx), 1);
  const done = await read(id);
  assert.equal(done.status, "published");
  assert.equal(done.post_url, `https://network.test.example/p/c-${creates + 1}`);
  assert.equal(net.creates, creates + 1, "exactly one create");
  assert.equal(net.published.filter((c) => c === `c-${creates + 1}`).length, 1, "published once");
});

test("a worker that died inside a step (lease expired, step_started_at left) reconciles before anything else", async () => {
  const account = await liveAccount("Crash");
  const id = await delivery(account);
  const creates = net.creates;
  // Simulate: the create went through on the network, the worker died before saving the id.
  net.containers.set("c-orphan", { delivery: id });
  await app.ctx
    .db("deliveries")
    .where({ id })
    .update({ step_started_at: clock.now(), locked_until: new Date(clock.now().getTime() + 300_000) });
  assert.equal(await runDeliveryStep(app.ctx, id), undefined, "leased: nobody else steps it");
  clock.advance(301);
  assert.equal(await runDeliveryStep(app.ctx, id), "processing", "reconciled from the network");
  assert.equal((await read(id)).network_ids.container_id, "c-orphan");
  assert.equal(await runDeliveryStep(app.ctx, id), "published");
  assert.equal(net.creates, creates, "no second create");
});

test("a lost create response -> outcome_unknown -> reconcile finds the container -> published once", async () => {
  const account = await liveAccount("Lost");
  const id = await delivery(account);
  net.fail.push("lost-create");
  assert.equal(await runDeliveryStep(app.ctx, id), "outcome_unknown");
  const unknown = await read(id);
  assert.equal(unknown.status, "outcome_unknown");
  assert.ok(unknown.next_attempt_at > clock.now(), "reconcile waits for the backoff");
  const creates = net.creates;
  clock.advance(10);
  assert.equal(await runDeliveryStep(app.ctx, id), "processing");
  assert.equal(await runDeliveryStep(app.ctx, id), "published");
  assert.equal(net.creates, creates, "the create was not repeated");
});

test("outcome_unknown with nothing on the network goes back to pending and creates then", async () => {
  const account = await liveAccount("Nothing");
  const id = await delivery(account);
  await app.ctx.db("deliveries").where({ id }).update({ status: "outcome_unknown" });
  assert.equal(await runDeliveryStep(app.ctx, id), "pending");
  assert.equal(await runDeliveryStep(app.ctx, id), "processing");
  assert.equal(await runDeliveryStep(app.ctx, id), "published");
});

/**
 * `next` is exactly `seconds` after the step that set it, which ran between `before` and `after` (the test
 * clock moves with real time: on a loaded machine the step and the read take a while).
 */
function waitsFromStep(next: Date, before: Date, after: Date, seconds: number): void {
  const wait = seconds * 1000;
  assert.ok(
    next.getTime() >= before.getTime() + wait && next.getTime() <= after.getTime() + wait,
    `next attempt ${next.toISOString()} is ${seconds} s after the step (between ${before.toISOString()} and ${after.toISOString()})`,
  );
}

test("429 with Retry-After waits exactly that long; a 5xx before a create backs off; neither disconnects", async () => {
  const account = await liveAccount("Busy");
  const id = await delivery(account);
  net.fail.push("rate");
  let before = clock.now();
  assert.equal(await runDeliveryStep(app.ctx, id), "pending");
  const waiting = await read(id);
  waitsFromStep(waiting.next_attempt_at, before, clock.now(), 120);
  assert.match(waiting.error, /rate limited by the network: waiting 120 s/);
  assert.equal(await runDeliveryStep(app.ctx, id), undefined, "not before Retry-After");
  clock.advance(121);
  net.fail.push("transient");
  before = clock.now();
  assert.equal(await runDeliveryStep(app.ctx, id), "pending");
  const backoff = await read(id);
  assert.equal(backoff.attempt, 1);
  waitsFromStep(backoff.next_attempt_at, before, clock.now(), 5);
  clock.advance(6);
  assert.equal(await runDeliveryStep(app.ctx, id), "processing");
  assert.equal(await runDeliveryStep(app.ctx, id), "published");
  assert.equal((await app.ctx.db("social_accounts").where({ id: account }).first()).status, "connected");
});

test("advanceDeliveries waits on the app's clock, and only within its budget on that clock", async () => {
  const account = await liveAccount("Patient");
  const id = await delivery(account);
  net.fail.push("rate"); // Retry-After: 120 s
  // A wait on the system's timers would still be sleeping when this aborts it, leaving the delivery waiting.
  const bound = AbortSignal.timeout(20_000);
  let before = clock.now();
  await advanceDeliveries(app.ctx, [id], { budgetSeconds: 60, signal: bound });
  assert.equal(
    (await read(id)).status,
    "pending",
    "120 s is past the budget: it returns, the delivery waits",
  );
  assert.ok(clock.now().getTime() - before.getTime() < 60_000, "nothing was waited");
  before = clock.now();
  await advanceDeliveries(app.ctx, [id], { budgetSeconds: 300, signal: bound });
  const done = await read(id);
  assert.equal(done.status, "published", done.error ?? "");
  assert.ok(
    clock.now().getTime() - before.getTime() >= 119_000,
    "the Retry-After was waited out on the clock",
  );
});

test("an auth error -> the account needs_reconnect, the delivery fails with a clear reason, others unaffected", async () => {
  const revoked = await liveAccount("Revoked");
  const fine = await liveAccount("Fine");
  const a = await delivery(revoked);
  const b = await delivery(fine);
  net.fail.push("auth");
  assert.equal(await runDeliveryStep(app.ctx, a), "failed");
  const failed = await read(a);
  assert.match(
    failed.error,
    /the Instagram account @revoked needs to be reconnected on \/settings\/social: the access token was revoked/,
  );
  const acc = await app.ctx.db("social_accounts").where({ id: revoked }).first();
  assert.equal(acc.status, "needs_reconnect");
  assert.equal((await app.ctx.db("social_accounts").where({ id: fine }).first()).status, "connected");
  assert.equal(await runDeliveryStep(app.ctx, b), "processing");
  // A later delivery to the revoked account fails at once with the reconnect reason.
  const c = await delivery(revoked);
  assert.equal(await runDeliveryStep(app.ctx, c), "failed");
  assert.match((await read(c)).error, /needs to be reconnected on \/settings\/social/);
});

test("a used-up publishing limit fails the delivery before any create, naming the numbers", async () => {
  const account = await liveAccount("Quota");
  const id = await delivery(account);
  const creates = net.creates;
  net.quota = { used: 50, limit: 50 };
  try {
    assert.equal(await runDeliveryStep(app.ctx, id), "failed");
  } finally {
    net.quota = undefined;
  }
  assert.match((await read(id)).error, /reached its publishing limit \(50 of 50 posts in 24 h\)/);
  assert.equal(net.creates, creates);
});

test("tokens are refreshed before expiry; a refused refresh -> needs_reconnect; a 5xx never disconnects", async () => {
  const soon = await liveAccount("Soon", 1800);
  const later = await liveAccount("Later", 5 * 86_400);
  const flaky = await liveAccount("Flaky", 1800);
  const gone = await liveAccount("Gone", 1800);
  const before = await app.ctx.db("social_accounts").where({ id: soon }).first();
  // Order of refresh: by expiry; make the faults hit the right accounts by running them one at a time.
  await app.ctx
    .db("social_accounts")
    .whereIn("id", [flaky, gone])
    .update({ token_expires_at: new Date(clock.now().getTime() + 7_200_000) });
  const first = await refreshExpiringTokens(app.ctx);
  assert.ok(first.refreshed >= 1);
  const after = await app.ctx.db("social_accounts").where({ id: soon }).first();
  assert.notEqual(after.access_token_sealed, before.access_token_sealed);
  assert.ok(after.token_expires_at > before.token_expires_at);
  assert.equal(
    app.ctx.sealer.open(
      after.refresh_token_sealed,
      rowBinding("social_accounts", "refresh_token_sealed", soon),
    ),
    "refresh-Soon",
    "refresh token kept when none is sent",
  );
  assert.equal(
    (await app.ctx.db("social_accounts").where({ id: later }).first()).token_refreshed_at,
    null,
    "not due",
  );

  await app.ctx
    .db("social_accounts")
    .where({ id: flaky })
    .update({ token_expires_at: new Date(clock.now().getTime() + 1_000_000) });
  net.fail.push("refresh-5xx");
  const second = await refreshExpiringTokens(app.ctx);
  assert.equal(second.failed, 1);
  assert.equal((await app.ctx.db("social_accounts").where({ id: flaky }).first()).status, "connected");

  await app.ctx
    .db("social_accounts")
    .where({ id: gone })
    .update({ token_expires_at: new Date(clock.now().getTime() + 1_000_000) });
  await app.ctx
    .db("social_accounts")
    .where({ id: flaky })
    .update({ token_expires_at: new Date(clock.now().getTime() + 86_400_000) });
  net.fail.push("refresh-auth");
  const third = await refreshExpiringTokens(app.ctx);
  assert.equal(third.needsReconnect, 1);
  const g = await app.ctx.db("social_accounts").where({ id: gone }).first();
  assert.equal(g.status, "needs_reconnect");
  assert.match(g.last_error, /refresh token revoked/);
});
