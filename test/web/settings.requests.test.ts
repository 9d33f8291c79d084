/**
 * MCP settings page, requests per connection (service spec 3.1, 4.4): pending and recent
 * requests of each connection with their states and links to the request pages, all text escaped; revoked
 * connections keep their history; connections are listed from consent on (docs/oauth.md).
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { decideOperation } from "../../src/operations/approvals.ts";
import { processOperation } from "../../src/operations/execute.ts";
import { revokeGrant } from "../../src/oauth/grants.ts";
import { startTestApp } from "../helpers/app.ts";
import { removeWidget } from "../operations/fixtures.ts";
import { browserSession, call, connection, key, useTools } from "../operations/helpers.ts";

const app = await startTestApp({ env: { RATE_LIMIT_DELETE: "1000", RATE_LIMIT_BROWSER: "1000" } });
const rt = useTools(app, [removeWidget]);
const alice = await app.user({ workspace: "Alice <Studio>" });
const mallory = await app.user();
const EVIL = `<script>alert("x")</script> Serum & Co`;

async function productOf(who: { user_id: string; workspace_id: string }, name: string): Promise<string> {
  const [row] = await app.ctx
    .db("products")
    .insert({ workspace_id: who.workspace_id, user_id: who.user_id, name })
    .returning("id");
  return row.id;
}

async function request(auth: Awaited<ReturnType<typeof connection>>, productId: string): Promise<string> {
  const env = await call(rt, auth, "remove_widget", { idempotency_key: key(), product_id: productId });
  assert.equal(env.status, "approval_required");
  return env.operation_id as string;
}

async function settings(userId: string) {
  const s = await browserSession(app.ctx, userId);
  const res = await fetch(`${app.url}/settings/integrations/mcp`, { headers: { cookie: s.cookie } });
  assert.equal(res.status, 200);
  const body = await res.text();
  return { body, $: cheerio.load(body) };
}

const main = await connection(app, alice, ["delete:products"]);
const idle = await connection(app, alice, ["read:profile"]);
await app.ctx
  .db("oauth_clients")
  .where({ client_id: main.clientId })
  .update({ client_name: "<b>Evil</b> agent" });

test("pending and recent requests are shown per connection with states and links; text is escaped", async () => {
  const pending = await request(main, await productOf(alice, EVIL));
  const declined = await request(main, await productOf(alice, "Old stock"));
  assert.equal((await decideOperation(app.ctx, declined, alice.user_id, "decline")).kind, "declined");
  const done = await request(main, await productOf(alice, "Sold out"));
  assert.equal((await decideOperation(app.ctx, done, alice.user_id, "approve")).kind, "approved");
  assert.equal((await processOperation(app.ctx, done)).state, "succeeded");
  const expired = await request(main, await productOf(alice, "Too late"));
  await app.ctx
    .db("operations")
    .where({ id: expired })
    .update({ approval_expires_at: new Date(Date.now() - 1000) });
  // Mallory's request never shows on Alice's page.
  const theirs = await request(
    await connection(app, mallory, ["delete:products"]),
    await productOf(mallory, "M"),
  );

  const { body, $ } = await settings(alice.user_id);
  assert.ok(!body.includes("<script>alert"), "retrieved text is never markup");
  assert.ok(!body.includes("<b>Evil</b>"));
  assert.ok(!body.includes(theirs));
  assert.match($("#pending-count").text(), /1 request waits for your approval/);

  const section = $(`section[data-requests-for="${main.grantId}"]`);
  assert.equal(section.length, 1);
  assert.match(section.find("h3").text(), /<b>Evil<\/b> agent \(unverified\) · Alice <Studio> \(connected /);
  const pendingItems = section.find("ul.pending li");
  assert.deepEqual(pendingItems.map((_, el) => $(el).attr("data-operation-id")).get(), [pending]);
  const link = pendingItems.first().find("a");
  assert.equal(link.attr("href"), `/settings/integrations/mcp/requests/${pending}`);
  assert.equal(link.text(), "Test remove widget");
  assert.match(pendingItems.first().text(), /Delete the product “<script>alert\("x"\)<\/script> Serum & Co”/);

  const recent = Object.fromEntries(
    section
      .find("table.recent tbody tr")
      .map((_, el) => [[$(el).attr("data-operation-id"), $(el)]])
      .get() as Array<[string, cheerio.Cheerio<never>]>,
  );
  assert.deepEqual(Object.keys(recent).sort(), [declined, done, expired].sort());
  assert.equal(recent[done]!.find(".state").attr("data-state"), "succeeded");
  assert.equal(recent[done]!.find(".state").text(), "Done");
  assert.equal(recent[declined]!.find(".state").attr("data-state"), "denied");
  assert.equal(recent[expired]!.find(".state").text(), "Expired");
  for (const id of [declined, done, expired])
    assert.equal(recent[id]!.find("a").attr("href"), `/settings/integrations/mcp/requests/${id}`);

  const quiet = $(`section[data-requests-for="${idle.grantId}"]`);
  assert.match(quiet.text(), /No requests from this connection yet/);
});

test("a revoked connection disappears from the connections but keeps its request history", async () => {
  const c = await connection(app, alice, ["delete:products"]);
  const id = await request(c, await productOf(alice, "Archived"));
  await revokeGrant(app.ctx, c.grantId, "user");
  const { $ } = await settings(alice.user_id);
  assert.equal($(`tr[data-connection-id="${c.grantId}"]`).length, 0);
  const section = $(`section[data-requests-for="${c.grantId}"]`);
  assert.match(section.find("h3").text(), /\(revoked\)/);
  assert.equal(section.find(`a[href="/settings/integrations/mcp/requests/${id}"]`).length, 1);
});

test("a connection is listed from consent on, before its code is redeemed; an abandoned one is not", async () => {
  const addGrant = async (codeExpiresInMs: number) => {
    const [client] = await app.ctx
      .db("oauth_clients")
      .insert({
        client_name: "Fresh agent",
        redirect_uris: JSON.stringify(["http://127.0.0.1/cb"]),
        grant_types: JSON.stringify(["authorization_code", "refresh_token"]),
        response_types: JSON.stringify(["code"]),
      })
      .returning("client_id");
    const [grant] = await app.ctx
      .db("oauth_grants")
      .insert({
        user_id: alice.user_id,
        workspace_id: alice.workspace_id,
        client_id: client.client_id,
        resource: app.ctx.config.resourceUrl,
        scope: "read:profile",
      })
      .returning("id");
    await app.ctx.db("oauth_authorization_codes").insert({
      code_hash: createHash("sha256").update(randomBytes(16)).digest("hex"),
      grant_id: grant.id,
      client_id: client.client_id,
      redirect_uri: "http://127.0.0.1/cb",
      code_challenge: "x".repeat(43),
      resource: app.ctx.config.resourceUrl,
      scope: "read:profile",
      expires_at: new Date(Date.now() + codeExpiresInMs),
    });
    return grant.id as string;
  };
  const fresh = await addGrant(60_000);
  const abandoned = await addGrant(-60_000);
  const { $ } = await settings(alice.user_id);
  const row = $(`tr[data-connection-id="${fresh}"]`);
  assert.equal(row.length, 1);
  assert.match(row.text(), /Waiting for the application to finish connecting/);
  assert.equal(row.find(`form[action="/settings/integrations/mcp/connections/${fresh}/revoke"]`).length, 1);
  assert.equal($(`tr[data-connection-id="${abandoned}"]`).length, 0);
});
