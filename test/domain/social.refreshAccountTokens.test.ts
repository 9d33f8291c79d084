/**
 * Token refresh races (src/domain/social/refresh.ts `refreshAccountTokens`): a network that rotates refresh
 * tokens (X, TikTok, Pinterest) accepts each refresh token once. Two refreshes of one account at the same
 * time (two passes, or a pass and the delivery engine) must not both present the same refresh token (the
 * second would be refused and the account flipped to needs_reconnect), and a refresh that ends after the
 * account was disconnected must not write tokens back into it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectSocialAccount, disconnectAccount, openAccount } from "../../src/domain/social/accounts.ts";
import { refreshExpiringTokens } from "../../src/domain/social/refresh.ts";
import {
  type NetworkAdapter,
  NetworkAuthError,
  type NetworkRegistry,
  type TokenSet,
} from "../../src/providers/social/network.ts";
import { startTestApp } from "../helpers/app.ts";

/** The network's side: the one refresh token it currently accepts, the refreshes it answered. */
const net = { valid: "refresh-0", refreshes: 0, calls: 0, gate: undefined as Promise<void> | undefined };
let entered: () => void = () => {};

/** An X-like network: each refresh token works once and is replaced by a new one; answers take a while. */
const rotating: NetworkAdapter = {
  network: "x",
  mode: "live",
  oauth: {
    pkce: true,
    requiredScopes: ["tweet.write"],
    refreshAheadSeconds: 3600,
    authorizeUrl: () => "https://auth.test.example/authorize",
    exchangeCode: async () => ({ accessToken: "a", scopes: ["tweet.write"] }),
    async refresh(tokens: TokenSet) {
      net.calls += 1;
      entered();
      await (net.gate ?? new Promise((r) => setTimeout(r, 300)));
      if (tokens.refreshToken !== net.valid)
        throw new NetworkAuthError("invalid_grant: refresh token reused");
      net.refreshes += 1;
      net.valid = `refresh-${net.refreshes}`;
      return {
        accessToken: `access-${net.refreshes}`,
        refreshToken: net.valid,
        expiresAt: new Date(Date.now() + 2 * 3600_000),
        scopes: tokens.scopes,
      };
    },
    accounts: async () => [],
  },
  publisher: {
    step: async () => ({ state: "failed", reason: "not used" }),
    reconcile: async () => ({ state: "not_created" }),
  },
} as unknown as NetworkAdapter;

const networks = { adapter: () => rotating, forAccount: () => rotating } as unknown as NetworkRegistry;
const app = await startTestApp({ queue: false, providers: { networks } });
const me = await app.user();

async function expiringAccount(name: string) {
  const a = await connectSocialAccount(
    app.ctx.db,
    app.ctx.sealer,
    { userId: me.user_id, workspaceId: me.workspace_id },
    {
      network: "x",
      displayName: name,
      handle: name,
      mode: "live",
      networkAccountId: `x-${name}`,
      accessToken: "access-0",
      refreshToken: net.valid,
      expiresAt: new Date(Date.now() + 60_000),
      scopes: ["tweet.write"],
    },
  );
  return a.social_account_id;
}

test("two concurrent refreshes of a rotating token: one network refresh, the account stays connected", async () => {
  const id = await expiringAccount("Race");
  const before = net.refreshes;
  const [a, b] = await Promise.all([refreshExpiringTokens(app.ctx), refreshExpiringTokens(app.ctx)]);
  assert.equal(a.needsReconnect + b.needsReconnect, 0, "no refusal");
  assert.equal(a.refreshed + b.refreshed, 1);
  assert.equal(net.refreshes, before + 1, "the network was asked once");
  const account = await openAccount(app.ctx.db, app.ctx.sealer, id);
  assert.equal(account.status, "connected");
  assert.equal(
    account.tokens.refreshToken,
    net.valid,
    "the stored refresh token is the one the network accepts",
  );
  assert.equal(account.tokens.accessToken, `access-${net.refreshes}`);
});

test("a refresh that ends after a disconnect writes nothing back into the account", async () => {
  const id = await expiringAccount("Gone");
  let release: () => void = () => {};
  net.gate = new Promise<void>((r) => {
    release = r;
  });
  const inside = new Promise<void>((r) => {
    entered = r;
  });
  const pass = refreshExpiringTokens(app.ctx);
  await inside; // the refresh is at the network now
  const disconnected = disconnectAccount(
    app.ctx.db,
    { userId: me.user_id, workspaceId: me.workspace_id },
    id,
    new Date(),
  );
  release();
  await pass;
  assert.equal(await disconnected, true);
  net.gate = undefined;
  entered = () => {};
  const row = await app.ctx.db("social_accounts").where({ id }).first();
  assert.equal(row.status, "disconnected");
  assert.equal(row.access_token_sealed, null, "no token written back");
  assert.equal(row.refresh_token_sealed, null);
  const calls = net.calls;
  assert.deepEqual(await refreshExpiringTokens(app.ctx), { refreshed: 0, needsReconnect: 0, failed: 0 });
  assert.equal(net.calls, calls, "a disconnected account is not refreshed");
});
