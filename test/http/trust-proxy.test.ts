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
