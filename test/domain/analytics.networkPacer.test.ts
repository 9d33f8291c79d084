/**
 * The analytics sync's pacing of one network (src/domain/analytics/pacing.ts): the pause between calls, a
 * Retry-After waited out and the same call tried again (bounded), a wait too long stopping the network for
 * the run, and other errors passed through.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { networkPacer, SyncStopped } from "../../src/domain/analytics/pacing.ts";
import { NetworkRateLimitError, NetworkTransientError } from "../../src/providers/social/network.ts";

test("calls are spaced by the pause (none before the first)", async () => {
  const pacer = networkPacer("Net", { pauseMs: 60, maxWaitSeconds: 10 });
  const times: number[] = [];
  for (let i = 0; i < 3; i++) await pacer.run(async () => times.push(Date.now()));
  assert.ok(times[1]! - times[0]! >= 55 && times[2]! - times[1]! >= 55, `${times}`);
});

test("a Retry-After within the limit is waited out and the call tried again, at most 3 times", async () => {
  const pacer = networkPacer("Net", { pauseMs: 0, maxWaitSeconds: 10 });
  let calls = 0;
  const started = Date.now();
  const out = await pacer.run(async () => {
    calls += 1;
    if (calls === 1) throw new NetworkRateLimitError("slow down", 1);
    return "read";
  });
  assert.equal(out, "read");
  assert.equal(calls, 2);
  assert.ok(Date.now() - started >= 1000);

  const always = networkPacer("Busy", { pauseMs: 0, maxWaitSeconds: 10 });
  let tries = 0;
  await assert.rejects(
    always.run(async () => {
      tries += 1;
      throw new NetworkRateLimitError("slow down", 0);
    }),
    SyncStopped,
  );
  assert.equal(tries, 4, "the call and 3 retries");
  assert.match(always.stopped ?? "", /^Busy rate limited this account's reads \(retry after 0 s\)/);
});

test("a wait beyond the limit stops the network for the run; other errors pass through", async () => {
  const pacer = networkPacer("Net", { pauseMs: 0, maxWaitSeconds: 120 });
  await assert.rejects(
    pacer.run(async () => {
      throw new NetworkTransientError("the network failed temporarily");
    }),
    NetworkTransientError,
  );
  assert.equal(pacer.stopped, undefined);
  await assert.rejects(
    pacer.run(async () => {
      throw new NetworkRateLimitError("quota", 3600);
    }),
    (e: unknown) => e instanceof SyncStopped && /retry after 3600 s/.test(e.message),
  );
  let called = false;
  await assert.rejects(
    pacer.run(async () => {
      called = true;
    }),
    SyncStopped,
  );
  assert.equal(called, false, "nothing more is sent to a stopped network");
});
