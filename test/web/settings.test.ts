/** MCP settings page: connections, pending requests, revocation (service spec 4.4). */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import * as cheerio from "cheerio";
import type { Request } from "express";
import { decodeJwt } from "jose";
import { rowBinding } from "../../src/crypto/seal.ts";
import { authenticateBearer, BearerError } from "../../src/oauth/bearer.ts";
import { startTestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";
import { formFields, HIGH_LIMITS, Jar, login, obtainTokens } from "../oauth/support.ts";

const app = await startTestApp({ env: HIGH_LIMITS });
const alice = await app.user({ workspace: "Alice Studio" });
const mallory = await app.user();

const bearer = (t: string) =>
  ({ headers: { authorization: `Bearer ${t}` }, query: {} }) as unknown as Request;

async function signedIn(who: { email: string; password: string }) {
  const jar = new Jar(app.url);
  assert.equal((await login(jar, who.email, who.password)).status, 303);
  return jar;
}

test("without a session the settings page redirects to login and back", async () => {
  const res = await fetch(`${app.url}/settings/integrations/mcp`, { redirect: "manual" });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/login?return_to=%2Fsettings%2Fintegrations%2Fmcp");
  const post = await fetch(`${app.url}/settings/integrations/mcp/connections/${crypto.randomUUID()}/revoke`, {
    method: "POST",
    redirect: "manual",
  });
  assert.equal(post.status, 401);
});

test("the page lists the user's connections with client, workspace, scopes, created and last used", async () => {
  const jar = await signedIn(alice);
  const r = await obtainTokens(app, jar, alice, { query: { scope: "read:profile create:content" } });
  await authenticateBearer(app.ctx, bearer(r.tokens.access_token));
  await connect(app, mallory, ["read:profile"]);
  const res = await jar.fetch("/settings/integrations/mcp");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  const $ = cheerio.load(await res.text());
  const rows = $("tr[data-connection-id]");
  assert.equal(rows.length, 1, "only alice's connection");
  const text = rows.first().text();
  assert.match(text, /Test agent/);
  assert.match(text, /Alice Studio/);
  assert.match(text, /See your profile/);
  assert.match(text, /Create drafts/);
  assert.doesNotMatch(text, /never/, "last used is recorded");
  assert.equal(rows.first().attr("data-connection-id"), decodeJwt(r.tokens.access_token).grant_id);
});

test("revoking a connection needs CSRF and invalidates its tokens at once", async () => {
  const jar = await signedIn(alice);
  const r = await obtainTokens(app, jar, alice);
  const grantId = decodeJwt(r.tokens.access_token).grant_id as string;
  const page = await jar.fetch("/settings/integrations/mcp");
  const $ = cheerio.load(await page.text());
  const form = $(`tr[data-connection-id="${grantId}"] form`);
  const action = form.attr("action")!;
  assert.equal(action, `/settings/integrations/mcp/connections/${grantId}/revoke`);
  const fields = formFields(`<form>${form.html()}</form>`);
  assert.equal((await jar.post(action, {})).status, 403);
  assert.equal((await jar.post(action, fields, { origin: "https://evil.example" })).status, 403);
  await authenticateBearer(app.ctx, bearer(r.tokens.access_token));
  const res = await jar.post(action, fields);
  assert.equal(res.status, 303);
  await assert.rejects(authenticateBearer(app.ctx, bearer(r.tokens.access_token)), BearerError);
  const after = cheerio.load(await (await jar.fetch("/settings/integrations/mcp?revoked=1")).text());
  assert.equal(after(`tr[data-connection-id="${grantId}"]`).length, 0);
  assert.match(after("body").text(), /revoked/);
});

test("another user's connection is not found and stays active", async () => {
  const theirs = await connect(app, mallory, ["read:profile"]);
  const jar = await signedIn(alice);
  // The session's CSRF token, as any of alice's forms carries it.
  const csrf = formFields(await (await jar.fetch("/logout")).text()).csrf_token!;
  const res = await jar.post(`/settings/integrations/mcp/connections/${theirs.grantId}/revoke`, {
    csrf_token: csrf,
  });
  assert.equal(res.status, 404);
  await authenticateBearer(app.ctx, bearer(theirs.token));
  const bad = await jar.post("/settings/integrations/mcp/connections/not-a-uuid/revoke", {
    csrf_token: csrf,
  });
  assert.equal(bad.status, 404);
});

test("pending approval requests are listed under their connection with a link to their page", async () => {
  const c = await connect(app, alice, ["delete:content"]);
  const id = randomUUID();
  const [op] = await app.ctx
    .db("operations")
    .insert({
      id,
      grant_id: c.grantId,
      user_id: alice.user_id,
      workspace_id: alice.workspace_id,
      client_id: c.clientId,
      tool: "delete_post",
      state: "approval_required",
      arguments_sealed: app.ctx.sealer.seal({}, rowBinding("operations", "arguments_sealed", id)),
      key_id: app.ctx.sealer.keyId,
      approval_expires_at: new Date(Date.now() + 1800_000),
    })
    .returning("id");
  const jar = await signedIn(alice);
  const $ = cheerio.load(await (await jar.fetch("/settings/integrations/mcp")).text());
  const link = $(
    `section[data-requests-for="${c.grantId}"] ul.pending a[href="/settings/integrations/mcp/requests/${op.id}"]`,
  );
  assert.equal(link.length, 1);
  assert.equal(link.text(), "Delete post");
});
