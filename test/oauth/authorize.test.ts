/**
 * Authorization endpoint and consent (RFC 6749 4.1, RFC 7636, RFC 8707, RFC 9207, RFC 8252
 * 7.3): error page vs redirect, PKCE S256 only, resource, scopes, login round trip, consent page content,
 * CSRF, one-time consent nonce, open-redirect attempts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { addMember } from "../../src/domain/account/accounts.ts";
import { DEFAULT_SCOPES } from "../../src/oauth/scope.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import {
  authorizeQuery,
  exchange,
  formFields,
  HIGH_LIMITS,
  Jar,
  login,
  obtainCode,
  pkce,
  register,
} from "./support.ts";

const clock = new TestClock();
const app = await startTestApp({ env: HIGH_LIMITS, clock });
const alice = await app.user();

async function signedIn(who = alice): Promise<Jar> {
  const jar = new Jar(app.url);
  const res = await login(jar, who.email, who.password);
  assert.equal(res.status, 303);
  return jar;
}

async function consentFields(jar: Jar, path: string): Promise<Record<string, string>> {
  const res = await jar.fetch(path);
  assert.equal(res.status, 200);
  return formFields(await res.text());
}

test("without a session the browser goes to /login and comes back to the same request", async () => {
  const client = await register(app);
  const path = authorizeQuery(app, client, pkce());
  const jar = new Jar(app.url);
  const res = await jar.fetch(path);
  assert.equal(res.status, 303);
  const loc = new URL(res.headers.get("location")!, app.url);
  assert.equal(loc.pathname, "/login");
  assert.equal(loc.searchParams.get("return_to"), path);
  const back = await login(jar, alice.email, alice.password, path);
  assert.equal(back.status, 303);
  assert.equal(back.headers.get("location"), path);
  assert.equal((await jar.fetch(path)).status, 200);
});

test("the consent page names the unverified client, lists scopes in plain words and offers one workspace choice", async () => {
  const client = await register(app, { client_name: '<script>alert("x")</script>Evil' });
  const bob = await app.user({ workspace: "Bob's" });
  await addMember(app.ctx.db, alice.workspace_id, bob.email);
  const jar = await signedIn(bob);
  const res = await jar.fetch(authorizeQuery(app, client, pkce(), { scope: "read:profile create:content" }));
  assert.equal(res.status, 200);
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:9/);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.equal(res.headers.get("referrer-policy"), "same-origin");
  assert.equal(res.headers.get("cache-control"), "no-store");
  const text = await res.text();
  assert.ok(!text.includes("<script>alert"), "client name is escaped");
  const $ = cheerio.load(text);
  assert.match($("body").text(), /Unverified application/);
  assert.match($("body").text(), /<script>alert\("x"\)<\/script>Evil/);
  assert.match($("body").text(), /See your profile, plan, credit balance and account settings/);
  assert.match($("body").text(), /Create drafts/);
  const radios = $('input[type="radio"][name="workspace_id"]');
  assert.equal(radios.length, 2);
  assert.deepEqual(
    radios
      .map((_, el) => $(el).attr("value"))
      .get()
      .sort(),
    [alice.workspace_id, bob.workspace_id].sort(),
  );
  const others = $("form input").not('[name="workspace_id"]');
  others.each((_, el) => assert.equal($(el).attr("type"), "hidden", $(el).attr("name")));
  assert.equal($('button[name="decision"][value="approve"]').length, 1);
  assert.equal($('button[name="decision"][value="deny"]').length, 1);
});

test("an unknown client or unregistered redirect URI shows an error page and never redirects", async () => {
  const client = await register(app, {
    redirect_uris: ["https://app.example/cb", "http://localhost:7000/cb"],
  });
  const jar = await signedIn();
  const p = pkce();
  const attempts: Array<Record<string, string | undefined>> = [
    { client_id: "00000000-0000-4000-8000-000000000000" },
    { client_id: "not-a-uuid" },
    { redirect_uri: undefined },
    { redirect_uri: "https://evil.example/cb" },
    { redirect_uri: "https://app.example/cb/../evil" },
    { redirect_uri: "https://app.example/cb?next=https://evil.example" },
    { redirect_uri: "https://app.example.evil.example/cb" },
    { redirect_uri: "https://app.example/cb#x" },
    { redirect_uri: "https://app.example/CB" },
    { redirect_uri: "http://localhost:7001/cb" },
    { redirect_uri: "//evil.example/cb" },
  ];
  for (const over of attempts) {
    const res = await jar.fetch(authorizeQuery(app, client, p, over));
    assert.equal(res.status, 400, JSON.stringify(over));
    assert.equal(res.headers.get("location"), null, JSON.stringify(over));
    assert.match(await res.text(), /cannot be completed/);
  }
});

test("numeric loopback redirect URIs may use any port; the exchange must repeat the exact URI", async () => {
  const client = await register(app, {
    redirect_uris: ["http://127.0.0.1/callback", "http://[::1]:1234/cb"],
  });
  const jar = await signedIn();
  for (const uri of ["http://127.0.0.1:53123/callback", "http://[::1]:9999/cb"]) {
    const r = await obtainCode(app, jar, alice, { client, query: { redirect_uri: uri } });
    assert.equal(`${r.location.origin}${r.location.pathname}`, uri);
    assert.equal(
      (await exchange(app, r, { redirect_uri: "http://127.0.0.1/callback" })).body.error,
      "invalid_grant",
    );
  }
  const r = await obtainCode(app, jar, alice, {
    client,
    query: { redirect_uri: "http://127.0.0.1:40000/callback" },
  });
  assert.equal((await exchange(app, r)).status, 200);
  const otherPath = await jar.fetch(
    authorizeQuery(app, client, pkce(), { redirect_uri: "http://127.0.0.1:40000/other" }),
  );
  assert.equal(otherPath.status, 400);
});

test("errors after the redirect URI is validated redirect with error, state and iss", async () => {
  const client = await register(app);
  const jar = await signedIn();
  const cases: Array<[Record<string, string | undefined>, string]> = [
    [{ response_type: "token" }, "unsupported_response_type"],
    [{ code_challenge_method: "plain" }, "invalid_request"],
    [{ code_challenge_method: undefined }, "invalid_request"],
    [{ code_challenge: undefined }, "invalid_request"],
    [{ code_challenge: "short" }, "invalid_request"],
    [{ resource: undefined }, "invalid_target"],
    [{ resource: `${app.url}/other` }, "invalid_target"],
    [{ resource: `${app.resource}/` }, "invalid_target"],
    [{ resource: "https://evil.example/mcp" }, "invalid_target"],
    [{ scope: "read:profile admin:everything" }, "invalid_scope"],
    [{ scope: "openid" }, "invalid_scope"],
  ];
  for (const [over, error] of cases) {
    const res = await jar.fetch(authorizeQuery(app, client, pkce(), over));
    assert.equal(res.status, 303, JSON.stringify(over));
    const loc = new URL(res.headers.get("location")!);
    assert.equal(`${loc.origin}${loc.pathname}`, client.redirect_uris[0]);
    assert.equal(loc.searchParams.get("error"), error, JSON.stringify(over));
    assert.equal(loc.searchParams.get("state"), "st-123");
    assert.equal(loc.searchParams.get("iss"), app.ctx.config.issuerUrl);
    assert.equal(loc.searchParams.get("code"), null);
  }
  const repeated = await jar.fetch(`${authorizeQuery(app, client, pkce())}&scope=read:media`);
  assert.equal(new URL(repeated.headers.get("location")!).searchParams.get("error"), "invalid_request");
});

test("before sign-in an invalid request never redirects to the client: an error page is shown", async () => {
  // Anyone can register a client with any redirect URI; a crafted link must not make the service redirect
  // a signed-out browser there (RFC 9700 4.11.1).
  const client = await register(app, { redirect_uris: ["https://attacker.example/landing"] });
  const jar = new Jar(app.url);
  for (const over of [
    { response_type: "token" },
    { scope: "admin:everything" },
    { resource: "https://evil.example/mcp" },
    { code_challenge: undefined },
  ] as Array<Record<string, string | undefined>>) {
    const res = await jar.fetch(authorizeQuery(app, client, pkce(), over));
    assert.equal(res.status, 400, JSON.stringify(over));
    assert.equal(res.headers.get("location"), null, JSON.stringify(over));
    assert.match(await res.text(), /authorization request is invalid/);
  }
  // A valid request still goes through sign-in.
  const ok = await jar.fetch(authorizeQuery(app, client, pkce()));
  assert.equal(ok.status, 303);
  assert.equal(new URL(ok.headers.get("location")!, app.url).pathname, "/login");
});

test("offline_access is accepted and ignored; an empty scope means the read scopes", async () => {
  const jar = await signedIn();
  const a = await obtainCode(app, jar, alice, { query: { scope: "offline_access read:media" } });
  assert.equal((await exchange(app, a)).body.scope, "read:media");
  const b = await obtainCode(app, jar, alice, { query: { scope: undefined } });
  assert.equal((await exchange(app, b)).body.scope, DEFAULT_SCOPES.join(" "));
  const c = await obtainCode(app, jar, alice, { query: { scope: "offline_access" } });
  assert.equal((await exchange(app, c)).body.scope, DEFAULT_SCOPES.join(" "));
});

test("approve without a session, without or with a wrong CSRF token, or cross-origin is refused", async () => {
  const client = await register(app);
  const jar = await signedIn();
  const fields = await consentFields(jar, authorizeQuery(app, client, pkce()));
  const approve: Record<string, string> = {
    ...fields,
    workspace_id: alice.workspace_id,
    decision: "approve",
  };
  const anonymous = await new Jar(app.url).post("/mcp/oauth/authorize", approve);
  assert.equal(anonymous.status, 401);
  const { csrf_token: _, ...noCsrf } = approve;
  const missing = await jar.post("/mcp/oauth/authorize", noCsrf);
  assert.equal(missing.status, 403);
  assert.equal(missing.headers.get("location"), null);
  const wrong = await jar.post("/mcp/oauth/authorize", { ...approve, csrf_token: "x".repeat(43) });
  assert.equal(wrong.status, 403);
  const crossSite = await jar.post("/mcp/oauth/authorize", approve, { origin: "https://evil.example" });
  assert.equal(crossSite.status, 403);
  // The nonce was not spent by the refused attempts.
  const ok = await jar.post("/mcp/oauth/authorize", approve, { origin: app.url });
  assert.equal(ok.status, 303);
  assert.ok(new URL(ok.headers.get("location")!).searchParams.get("code"));
});

test("a consent nonce is one-time, bound to the session and the request, and expires", async () => {
  const client = await register(app);
  const jar = await signedIn();
  const fields = await consentFields(jar, authorizeQuery(app, client, pkce()));
  const approve = { ...fields, workspace_id: alice.workspace_id, decision: "approve" };
  assert.equal((await jar.post("/mcp/oauth/authorize", approve)).status, 303);
  const replay = await jar.post("/mcp/oauth/authorize", approve);
  assert.equal(replay.status, 400);
  assert.equal(replay.headers.get("location"), null);

  // Another session (same user) cannot use this session's nonce, even with its own CSRF token.
  const fresh = await consentFields(jar, authorizeQuery(app, client, pkce()));
  const other = await signedIn();
  const otherFields = await consentFields(other, authorizeQuery(app, client, pkce()));
  const stolen = await other.post("/mcp/oauth/authorize", {
    ...fresh,
    csrf_token: otherFields.csrf_token!,
    workspace_id: alice.workspace_id,
    decision: "approve",
  });
  assert.equal(stolen.status, 400);

  // Altering a hidden field (widening the scope, swapping the redirect or challenge) is refused.
  for (const over of [
    { scope: "read:profile delete:content" } as Record<string, string>,
    { code_challenge: pkce().challenge },
    { state: "other" },
  ]) {
    const f = await consentFields(jar, authorizeQuery(app, client, pkce()));
    const res = await jar.post("/mcp/oauth/authorize", {
      ...f,
      ...over,
      workspace_id: alice.workspace_id,
      decision: "approve",
    });
    assert.equal(res.status, 400, JSON.stringify(over));
  }

  const late = await consentFields(jar, authorizeQuery(app, client, pkce()));
  clock.advance(601);
  const expired = await jar.post("/mcp/oauth/authorize", {
    ...late,
    workspace_id: alice.workspace_id,
    decision: "approve",
  });
  assert.equal(expired.status, 400);
});

test("a workspace the user does not belong to cannot be chosen", async () => {
  const mallory = await app.user();
  const jar = await signedIn();
  const fields = await consentFields(jar, authorizeQuery(app, await register(app), pkce()));
  const res = await jar.post("/mcp/oauth/authorize", {
    ...fields,
    workspace_id: mallory.workspace_id,
    decision: "approve",
  });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("location"), null);
  assert.equal(
    await app.ctx.db("oauth_grants").where({ workspace_id: mallory.workspace_id }).first(),
    undefined,
  );
});

test("consent does not offer a suspended workspace, and refuses it when posted", async () => {
  const frank = await app.user({ workspace: "Frank's" });
  await addMember(app.ctx.db, alice.workspace_id, frank.email);
  await app.ctx.db("workspaces").where({ id: frank.workspace_id }).update({ status: "suspended" });
  const jar = await signedIn(frank);
  const page = await jar.fetch(authorizeQuery(app, await register(app), pkce()));
  assert.equal(page.status, 200);
  const text = await page.text();
  const fields = formFields(text);
  const $ = cheerio.load(text);
  assert.deepEqual(
    $('input[name="workspace_id"]')
      .map((_, el) => $(el).attr("value"))
      .get(),
    [alice.workspace_id],
    "only the active workspace is offered",
  );
  const res = await jar.post("/mcp/oauth/authorize", {
    ...fields,
    workspace_id: frank.workspace_id,
    decision: "approve",
  });
  assert.equal(res.status, 400);
  assert.equal(
    await app.ctx.db("oauth_grants").where({ workspace_id: frank.workspace_id }).first(),
    undefined,
  );
});

test("deny redirects with access_denied, state and iss and creates no grant", async () => {
  const client = await register(app);
  const jar = await signedIn();
  const fields = await consentFields(jar, authorizeQuery(app, client, pkce()));
  const res = await jar.post("/mcp/oauth/authorize", { ...fields, decision: "deny" });
  assert.equal(res.status, 303);
  const loc = new URL(res.headers.get("location")!);
  assert.equal(loc.searchParams.get("error"), "access_denied");
  assert.equal(loc.searchParams.get("state"), "st-123");
  assert.equal(loc.searchParams.get("iss"), app.ctx.config.issuerUrl);
  assert.equal(await app.ctx.db("oauth_grants").where({ client_id: client.client_id }).first(), undefined);
});
