/**
 * X's 24-hour app cap read as the APP's budget (https://docs.x.com/x-api/fundamentals/rate-limits: the
 * `x-app-limit-24hour-*` headers of the Manage Posts endpoints): on a 2xx whose
 * `x-app-limit-24hour-remaining` is 0 (src/providers/social/usage.ts `xUsageStop`) and on a 429 carrying it
 * (src/providers/social/api-errors.ts `apiError`), so the delivery lanes pause X for every account, not only
 * the one whose post met it; a user's own `x-rate-limit-*` stays the token's.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { apiError } from "../../../src/providers/social/api-errors.ts";
import { NetworkRateLimitError } from "../../../src/providers/social/network.ts";
import { xUsageStop } from "../../../src/providers/social/usage.ts";
import { X } from "../../../src/providers/social/x/table.ts";

const now = new Date("2026-11-28T12:00:00Z");
const epoch = (s: number) => String(now.getTime() / 1000 + s);

test("a 2xx with x-app-limit-24hour-remaining 0 stops the app until its reset; x-rate-limit 0 the token", () => {
  const app = xUsageStop(
    new Headers({
      "x-app-limit-24hour-limit": "10000",
      "x-app-limit-24hour-remaining": "0",
      "x-app-limit-24hour-reset": epoch(3600),
      "x-rate-limit-remaining": "40",
    }),
    now,
  );
  assert.deepEqual(app, { scope: "app", seconds: 3600, source: "x-app-limit-24hour-remaining 0" });
  const token = xUsageStop(
    new Headers({
      "x-app-limit-24hour-remaining": "9000",
      "x-rate-limit-remaining": "0",
      "x-rate-limit-reset": epoch(120),
    }),
    now,
  );
  assert.deepEqual(token, { scope: "token", seconds: 120, source: "x-rate-limit-remaining 0" });
  assert.equal(xUsageStop(new Headers({ "x-app-limit-24hour-remaining": "5" }), now), undefined);
});

test("a 429 with the app cap spent is the app's limit, waited until its reset; a user's 429 the token's", () => {
  const failure = (headers: Record<string, string>) => ({
    status: 429,
    text: "Too Many Requests",
    headers: new Headers(headers),
  });
  const appErr = apiError(
    X.api,
    failure({ "x-app-limit-24hour-remaining": "0", "x-app-limit-24hour-reset": epoch(7200) }),
    { afterCreate: false, now },
  );
  assert.ok(appErr instanceof NetworkRateLimitError);
  assert.equal(appErr.scope, "app");
  assert.equal(appErr.retryAfterSeconds, 7200);
  const userErr = apiError(
    X.api,
    failure({ "x-rate-limit-remaining": "0", "x-rate-limit-reset": epoch(300) }),
    { afterCreate: false, now },
  );
  assert.ok(userErr instanceof NetworkRateLimitError);
  assert.equal(userErr.scope, "token");
  assert.equal(userErr.retryAfterSeconds, 300);
});
