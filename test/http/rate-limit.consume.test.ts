import assert from "node:assert/strict";
import { test } from "node:test";
import { createLimiter, ipKey } from "../../src/runtime/rate-limit.ts";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp();

test("a limiter allows `points` per window, then answers retryAfter in seconds", async () => {
  const limiter = createLimiter(app.ctx, "t1", 3);
  for (let i = 0; i < 3; i++) assert.deepEqual(await limiter.consume("k"), { ok: true });
  const r = await limiter.consume("k");
  assert.equal(r.ok, false);
  assert.ok(!r.ok && r.retryAfter >= 1 && r.retryAfter <= 60);
  assert.deepEqual(await limiter.consume("other"), { ok: true });
});

test("two limiters with the same name share the count (as two instances would, through Postgres)", async () => {
  const a = createLimiter(app.ctx, "shared", 2);
  const b = createLimiter(app.ctx, "shared", 2);
  assert.equal((await a.consume("u")).ok, true);
  assert.equal((await b.consume("u")).ok, true);
  assert.equal((await a.consume("u")).ok, false);
});

test("ipKey: IPv4 as it is (also IPv4-mapped), IPv6 by its /64", () => {
  for (const [given, want] of [
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:0:0:0:9", "2001:db8:1:2::/64"],
    ["2001:db8:1:3::1", "2001:db8:1:3::/64"],
    ["::1", "::/64"],
    [undefined, "unknown"],
    ["not:an:address", "not:an:address"],
  ] as const)
    assert.equal(ipKey(given), want, String(given));
});
