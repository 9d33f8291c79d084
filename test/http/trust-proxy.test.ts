/**
 * TRUST_PROXY decides which address the per-IP limits count: with a hop count or a proxy list, a client
 * cannot escape the /mcp per-IP limit by sending its own X-Forwarded-For entries.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestApp } from "../helpers/app.ts";

/** POSTs to /mcp without a token: 401 while under the per-IP limit, 429 once over it. */
async function statuses(url: string, forwardedFor: (i: number) => string | undefined, n: number) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const xff = forwardedFor(i);
    const res = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(xff ? { "x-forwarded-for": xff } : {}),
      },
      body: "{}",
    });
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

for (const trust of ["1", "127.0.0.1", "127.0.0.0/8"]) {
  test(`TRUST_PROXY=${trust}: spoofed leftmost X-Forwarded-For entries do not reset the per-IP limit`, async () => {
    const app = await startTestApp({ env: { TRUST_PROXY: trust, RATE_LIMIT_MCP_IP: "2" } });
    // The proxy (the test, on 127.0.0.1) appends the real client 203.0.113.7; the client forged the rest.
    const s = await statuses(app.url, (i) => `198.51.100.${i}, 203.0.113.7`, 4);
    assert.deepEqual(s, [401, 401, 429, 429]);
    // Another real client behind the same proxy has its own budget.
    assert.deepEqual(await statuses(app.url, () => "203.0.113.8", 1), [401]);
    await app.close();
  });
}

test("TRUST_PROXY unset: X-Forwarded-For is ignored, the socket peer is counted", async () => {
  const app = await startTestApp({ env: { RATE_LIMIT_MCP_IP: "2" } });
  assert.deepEqual(await statuses(app.url, (i) => `203.0.113.${i}`, 3), [401, 401, 429]);
  await app.close();
});

test("an IPv6 client is counted by its /64: rotating addresses inside it shares one per-IP count", async () => {
  const app = await startTestApp({ env: { TRUST_PROXY: "loopback", RATE_LIMIT_MCP_IP: "3" } });
  const rotating = (i: number) => `2001:db8:1:2:${(i * 7919).toString(16)}::${i + 1}`;
  assert.deepEqual(await statuses(app.url, rotating, 5), [401, 401, 401, 429, 429]);
  // The next /64 (another subscriber) has its own count; an IPv4-mapped address is its IPv4 address.
  assert.deepEqual(await statuses(app.url, () => "2001:db8:1:3::1", 1), [401]);
  assert.deepEqual(
    await statuses(app.url, (i) => (i % 2 ? "::ffff:203.0.113.9" : "203.0.113.9"), 4),
    [401, 401, 401, 429],
  );
  await app.close();
});

test("client registration: an IPv6 /64 shares the per-IP limit, and every address shares the hourly cap", async () => {
  const app = await startTestApp({
    env: {
      TRUST_PROXY: "loopback",
      RATE_LIMIT_REGISTER: "2",
      RATE_LIMIT_REGISTER_IP_HOUR: "2",
      RATE_LIMIT_REGISTER_HOUR: "3",
    },
  });
  const register = async (xff: string) => {
    const res = await fetch(`${app.url}/mcp/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": xff },
      body: JSON.stringify({ client_name: "Agent", redirect_uris: ["http://127.0.0.1/cb"] }),
    });
    return { status: res.status, body: (await res.json()) as { error?: string; error_description?: string } };
  };
  assert.equal((await register("2001:db8:9:9::1")).status, 201);
  assert.equal((await register("2001:db8:9:9::2")).status, 201);
  assert.equal((await register("2001:db8:9:9:ffff::3")).status, 429, "same /64: the per-IP limit of 2");
  assert.equal((await register("198.51.100.1")).status, 201, "the hourly cap's 3rd");
  const capped = await register("198.51.100.2");
  assert.equal(capped.status, 429);
  assert.equal(capped.body.error, "rate_limited");
  assert.match(capped.body.error_description ?? "", /At most 3 client registrations per hour/);
  await app.close();
});

test("client registration: one address cannot use up the hourly cap, and refused or invalid registrations do not count against it", async () => {
  const app = await startTestApp({
    env: {
      TRUST_PROXY: "loopback",
      RATE_LIMIT_REGISTER: "100",
      RATE_LIMIT_REGISTER_IP_HOUR: "3",
      RATE_LIMIT_REGISTER_HOUR: "5",
    },
  });
  const register = async (xff: string, valid = true) => {
    const res = await fetch(`${app.url}/mcp/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": xff },
      body: JSON.stringify({
        client_name: "Agent",
        redirect_uris: [valid ? "http://127.0.0.1/cb" : "ftp://x"],
      }),
    });
    return { status: res.status, body: (await res.json()) as { error?: string; error_description?: string } };
  };
  // One address (a /64): 3 an hour, whatever else it sends; its refused attempts are not the cap's.
  for (let i = 1; i <= 3; i++) assert.equal((await register(`2001:db8:7:7::${i}`)).status, 201);
  for (let i = 4; i <= 6; i++) {
    const refused = await register(`2001:db8:7:7::${i}`);
    assert.equal(refused.status, 429);
    assert.match(
      refused.body.error_description ?? "",
      /At most 3 client registrations per hour .* from one address/,
    );
  }
  // Invalid registrations from many addresses register nothing and leave the cap alone.
  for (let i = 1; i <= 4; i++) assert.equal((await register(`198.51.100.${i}`, false)).status, 400);
  assert.equal((await register("203.0.113.20")).status, 201, "the cap's 4th");
  assert.equal((await register("203.0.113.21")).status, 201, "the cap's 5th");
  const capped = await register("203.0.113.22");
  assert.equal(capped.status, 429);
  assert.match(capped.body.error_description ?? "", /At most 5 client registrations per hour are accepted/);
  assert.equal(Number((await app.ctx.db("oauth_clients").count({ n: "*" }).first())?.n), 5);
  await app.close();
});
