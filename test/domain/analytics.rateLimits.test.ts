/**
 * Rate limits as the networks state them (docs/analytics.md "Failures and rate limits";
 * src/domain/analytics/sync.ts, pacing.ts, src/providers/social/api-errors.ts): Facebook Pages, each read
 * with its own Page token, against the Graph fake. A token's own limit (code 17 with
 * `X-Business-Use-Case-Usage` asking for an hour) stops that account only; the app's limit (code 4 with
 * `X-App-Usage` at 100) stops every account of the app, shared by the jobs through `analytics_rate_stops`;
 * what is left is partial with the reason, for the next night.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { syncAnalytics } from "../../src/domain/analytics/sync.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import type { Capabilities } from "../../src/providers/social/network.ts";
import { FB_GRAPH_HOST, FB_SCOPES_GRANTED, facebookFake } from "../fakes/facebook.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { startTestApp } from "../helpers/app.ts";

const server = await startFakeNetworks();
const fb = facebookFake(server, FAKE_APPS.facebook);
const app = await startTestApp({
  env: {
    ...liveNetworkEnv(server, ["facebook"]),
    ANALYTICS_SYNC_PAUSE_MS: "0",
    ANALYTICS_SYNC_MAX_WAIT_SECONDS: "30",
  },
});
const me = await app.user({ plan: "pro" });
const db = app.ctx.db;
const CAN: Capabilities = { text: true, image: true, carousel: true, video: true };

const user = fb.addUser({ name: "Owner", pages: ["P1", "P2", "P3"] });
const pages: Array<{ pageId: string; accountId: string }> = [];
for (const page of user.pages) {
  fb.followers.set(page.id, 100);
  const { account } = await upsertConnectedAccount(
    db,
    app.ctx.sealer,
    { userId: me.user_id, workspaceId: me.workspace_id },
    {
      network: "facebook",
      mode: "live",
      account: { networkAccountId: page.id, handle: page.name, capabilities: CAN },
      tokens: { accessToken: page.accessToken, scopes: FB_SCOPES_GRANTED },
      now: new Date(),
    },
  );
  pages.push({ pageId: page.id, accountId: account.social_account_id });
}
// The jobs run in account id order: the first one meets the limit.
pages.sort((a, b) => a.accountId.localeCompare(b.accountId));
const [first, ...others] = pages as [(typeof pages)[0], ...typeof pages];

const saved = async (accountId: string) =>
  db("account_metrics").where({ social_account_id: accountId }).first();
const reads = (pageId: string) => server.hitsFor(FB_GRAPH_HOST, `/${pageId}`, "GET").length;

test("a token's own limit stops that account only; the other Pages are read", async () => {
  server.fault(
    { host: FB_GRAPH_HOST, path: `/${first.pageId}`, method: "GET" },
    {
      kind: "status",
      status: 400,
      body: { error: { message: "(#17) User request limit reached", type: "OAuthException", code: 17 } },
      headers: {
        "x-business-use-case-usage": JSON.stringify({
          [first.pageId]: [
            {
              type: "pages",
              call_count: 100,
              total_cputime: 10,
              total_time: 10,
              estimated_time_to_regain_access: 60,
            },
          ],
        }),
      },
    },
  );
  const report = await syncAnalytics(app.ctx);
  assert.deepEqual(report.networks.facebook, {
    accounts_synced: 2,
    accounts_failed: 1,
    posts_synced: 0,
    posts_failed: 0,
  });
  assert.match(
    (await saved(first.accountId)).last_error,
    /rate limited this account's reads \(retry after 3600 s\)/,
  );
  for (const o of others) assert.equal((await saved(o.accountId)).last_error, null);
  assert.equal(await db("analytics_rate_stops").first(), undefined, "no app-wide stop");
});

test("the app's limit stops every account of the app until the network's time; partial, for the next night", async () => {
  const before = others.map((o) => reads(o.pageId));
  server.fault(
    { host: FB_GRAPH_HOST, path: `/${first.pageId}`, method: "GET" },
    {
      kind: "status",
      status: 400,
      body: { error: { message: "(#4) Application request limit reached", type: "OAuthException", code: 4 } },
      headers: { "x-app-usage": JSON.stringify({ call_count: 100, total_cputime: 12, total_time: 20 }) },
    },
  );
  const report = await syncAnalytics(app.ctx);
  assert.deepEqual(report.networks.facebook, {
    accounts_synced: 0,
    accounts_failed: 3,
    posts_synced: 0,
    posts_failed: 0,
  });
  assert.deepEqual(
    others.map((o) => reads(o.pageId)),
    before,
    "no call for the other Pages once the app is stopped",
  );
  for (const p of pages) assert.match((await saved(p.accountId)).last_error, /rate limited the app's reads/);
  const stop = await db("analytics_rate_stops").where({ scope_key: "facebook:app" }).first();
  assert.ok(stop && new Date(stop.until).getTime() > Date.now());
});
