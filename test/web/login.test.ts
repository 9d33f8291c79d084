/** Browser login, sessions and logout. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { sha256 } from "../../src/crypto/seal.ts";
import { ManualClock, startTestApp } from "../helpers/app.ts";
import { formFields, HIGH_LIMITS, Jar, login } from "../oauth/support.ts";

const app = await startTestApp({ env: HIGH_LIMITS });
const https = await startTestApp({ env: { ...HIGH_LIMITS, PUBLIC_BASE_URL: "https://social.example" } });
const limited = await startTestApp({ env: { RATE_LIMIT_BROWSER: "2" } });
const alice = await app.user();

test("the login page has email and password fields and the page security headers", async () => {
  const res = await fetch(`${app.url}/login`);
  assert.equal(res.status, 200);
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /default-src 'none'/);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.ok(res.headers.get("referrer-policy"));
  assert.equal(res.headers.get("strict-transport-security"), null);
  const fields = formFields(await res.text());
  assert.ok("email" in fields && "password" in fields && "login_token" in fields);
});

test("a successful login sets an HttpOnly, SameSite=Lax session cookie stored only as a hash", async () => {
  const jar = new Jar(app.url);
  const page = await jar.fetch("/login");
  const fields = formFields(await page.text());
  const res = await jar.post("/login", {
    ...fields,
    email: alice.email.toUpperCase(),
    password: alice.password,
  });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/settings/integrations/mcp");
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("smcp_session="))!;
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.doesNotMatch(cookie, /Secure/);
  const value = jar.cookies.get("smcp_session")!;
  const row = await app.ctx
    .db("browser_sessions")
    .where({ id_hash: sha256(value) })
    .first();
  assert.equal(row.user_id, alice.user_id);
  assert.equal(await app.ctx.db("browser_sessions").where({ id_hash: value }).first(), undefined);
});

test("the session id rotates on login and the old session ends", async () => {
  const jar = new Jar(app.url);
  await login(jar, alice.email, alice.password);
  const first = jar.cookies.get("smcp_session")!;
  await login(jar, alice.email, alice.password);
  const second = jar.cookies.get("smcp_session")!;
  assert.notEqual(first, second);
  assert.equal(
    await app.ctx
      .db("browser_sessions")
      .where({ id_hash: sha256(first) })
      .first(),
    undefined,
  );
});

test("a wrong password and an unknown email get the same generic error and no session", async () => {
  const texts: string[] = [];
  for (const [email, password] of [
    [alice.email, "wrong password!"],
    ["nobody@example.test", alice.password],
  ] as const) {
    const jar = new Jar(app.url);
    const res = await login(jar, email, password);
    assert.equal(res.status, 401);
    assert.equal(jar.cookies.has("smcp_session"), false);
    const text = await res.text();
    texts.push(text.match(/<p class="error"[^>]*>([^<]*)</)![1]!);
  }
  assert.equal(texts[0], texts[1]);
});

test("a login post without the login token or from another origin is refused", async () => {
  const jar = new Jar(app.url);
  const fields = formFields(await (await jar.fetch("/login")).text());
  const { login_token: _, ...rest } = fields;
  assert.equal(
    (await jar.post("/login", { ...rest, email: alice.email, password: alice.password })).status,
    403,
  );
  const f2 = formFields(await (await jar.fetch("/login")).text());
  const cross = await jar.post(
    "/login",
    { ...f2, email: alice.email, password: alice.password },
    { origin: "https://evil.example" },
  );
  assert.equal(cross.status, 403);
  const f3 = formFields(await (await jar.fetch("/login")).text());
  const opaque = await jar.post(
    "/login",
    { ...f3, email: alice.email, password: alice.password },
    { origin: "null" },
  );
  assert.equal(opaque.status, 403);
  const noCookie = new Jar(app.url);
  assert.equal(
    (await noCookie.post("/login", { ...f2, email: alice.email, password: alice.password })).status,
    403,
  );
});

test("return_to only redirects to paths on this site (open-redirect attempts land on the default)", async () => {
  for (const target of [
    "//evil.example/x",
    "https://evil.example/x",
    "/\\evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "/\t/evil.example",
    "http:/evil.example",
  ]) {
    const res = await login(new Jar(app.url), alice.email, alice.password, target);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/settings/integrations/mcp", target);
  }
  const ok = await login(new Jar(app.url), alice.email, alice.password, "/settings/integrations/mcp?x=1");
  assert.equal(ok.headers.get("location"), "/settings/integrations/mcp?x=1");
});

test("logout needs the CSRF token and ends the session", async () => {
  const jar = new Jar(app.url);
  await login(jar, alice.email, alice.password);
  const id = jar.cookies.get("smcp_session")!;
  const page = await jar.fetch("/logout");
  const fields = formFields(await page.text());
  assert.equal((await jar.post("/logout", {})).status, 403);
  assert.ok(
    await app.ctx
      .db("browser_sessions")
      .where({ id_hash: sha256(id) })
      .first(),
  );
  const res = await jar.post("/logout", fields);
  assert.equal(res.status, 303);
  assert.equal(
    await app.ctx
      .db("browser_sessions")
      .where({ id_hash: sha256(id) })
      .first(),
    undefined,
  );
  assert.equal((await jar.fetch("/settings/integrations/mcp")).status, 303);
});

test("on an HTTPS base URL the session cookie is Secure and HSTS is sent", async () => {
  const bob = await https.user();
  const jar = new Jar(https.url);
  const res = await login(jar, bob.email, bob.password);
  assert.equal(res.status, 303);
  assert.match(res.headers.getSetCookie().find((c) => c.startsWith("smcp_session="))!, /; Secure/);
  assert.ok(res.headers.get("strict-transport-security"));
});

test("login attempts are throttled with 429 and Retry-After", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await new Jar(limited.url).post("/login", { email: "x@example.test", password: "nope" });
    statuses.push(res.status);
    if (res.status === 429) assert.ok(Number(res.headers.get("retry-after")) >= 1);
  }
  assert.deepEqual(statuses, [403, 403, 429]);
});

test("an email address gets 5 free attempts, then a wait that doubles with each failure; success clears it", async () => {
  // A clock that moves only when told: the waits are exact.
  const clock = new ManualClock();
  const throttled = await startTestApp({ env: HIGH_LIMITS, clock });
  const bob = await throttled.user();
  const attempt = async (password: string, email = bob.email) => {
    const res = await login(new Jar(throttled.url), email, password);
    const text = await res.text();
    return {
      status: res.status,
      retryAfter: Number(res.headers.get("retry-after")),
      error: text.match(/<p class="error"[^>]*>([^<]*)</)?.[1],
    };
  };
  for (let i = 0; i < 5; i++) assert.equal((await attempt("wrong password!")).status, 401);
  const waiting = await attempt(bob.password);
  assert.equal(waiting.status, 429, "even the right password waits: the guesses get no answer");
  assert.equal(waiting.retryAfter, 60);
  assert.equal(
    waiting.error,
    "Too many unsuccessful sign-ins for this email address from your network. Wait 1 minute before trying again.",
  );
  // Another address (from the same IP) is not affected; case does not make a new address.
  assert.equal((await attempt("wrong password!", "someone-else@example.test")).status, 401);
  assert.equal((await attempt("x", bob.email.toUpperCase())).status, 429);
  clock.advance(60);
  assert.equal((await attempt("wrong password!")).status, 401, "the 6th attempt, after the wait");
  assert.equal((await attempt(bob.password)).retryAfter, 120, "the wait doubles");
  clock.advance(120);
  assert.equal((await attempt(bob.password)).status, 303, "the right password after the wait");
  assert.equal((await attempt("wrong password!")).status, 401, "a success cleared the count");
  await throttled.close();
});

test("an attacker's failures slow the attacker's addresses only: the owner's password from their own address still works", async () => {
  const clock = new ManualClock();
  const proxied = await startTestApp({ env: { ...HIGH_LIMITS, TRUST_PROXY: "loopback" }, clock });
  const owner = await proxied.user();
  /** One sign-in from `address` (the proxy's X-Forwarded-For), page and form both. */
  const from = async (address: string, password: string) => {
    const jar = new Jar(proxied.url);
    const headers = { "x-forwarded-for": address };
    const page = await jar.fetch("/login", { headers });
    const fields = formFields(await page.text());
    const res = await jar.post("/login", { ...fields, email: owner.email, password }, headers);
    await res.arrayBuffer();
    return res.status;
  };
  // Guesses from one address: 5 free, then that address waits.
  for (let i = 0; i < 5; i++) assert.equal(await from("203.0.113.66", "guess!"), 401);
  assert.equal(await from("203.0.113.66", "guess!"), 429);
  assert.equal(
    await from("203.0.113.66", owner.password),
    429,
    "the attacker's address waits even when right",
  );
  // Guesses from more addresses (a /64 counts as one) are slowed each on their own.
  for (let i = 0; i < 5; i++) assert.equal(await from(`2001:db8:66:1::${i + 1}`, "guess!"), 401);
  assert.equal(await from("2001:db8:66:1:ffff::9", "guess!"), 429, "the same /64");
  // The owner is not locked out: a typo from their own address is theirs alone, and the password works.
  assert.equal(await from("198.51.100.10", "typo!"), 401);
  assert.equal(await from("198.51.100.10", owner.password), 303);
  // The attacker's address still waits.
  assert.equal(await from("203.0.113.66", "guess!"), 429);
  await proxied.close();
});
