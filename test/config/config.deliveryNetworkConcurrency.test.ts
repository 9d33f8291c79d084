/**
 * `DELIVERY_NETWORK_CONCURRENCY` (README "Configuration"): delivery steps each worker runs at once on one
 * network, 8 by default, 1 to 64; a bad value is refused naming the variable.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../src/config/index.ts";

test("DELIVERY_NETWORK_CONCURRENCY: 8 by default, 1 to 64, refused by name otherwise", () => {
  assert.equal(loadConfig({}).social.deliveryNetworkConcurrency, 8);
  assert.equal(loadConfig({ DELIVERY_NETWORK_CONCURRENCY: "1" }).social.deliveryNetworkConcurrency, 1);
  assert.equal(loadConfig({ DELIVERY_NETWORK_CONCURRENCY: "64" }).social.deliveryNetworkConcurrency, 64);
  assert.throws(
    () => loadConfig({ DELIVERY_NETWORK_CONCURRENCY: "0" }),
    /DELIVERY_NETWORK_CONCURRENCY: must be >= 1/,
  );
  assert.throws(() => loadConfig({ DELIVERY_NETWORK_CONCURRENCY: "65" }), /DELIVERY_NETWORK_CONCURRENCY/);
  assert.throws(() => loadConfig({ DELIVERY_NETWORK_CONCURRENCY: "eight" }), /DELIVERY_NETWORK_CONCURRENCY/);
});
