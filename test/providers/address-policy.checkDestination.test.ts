import assert from "node:assert/strict";
import { test } from "node:test";
import { checkDestination, classifyAddress, isLoopback } from "../../src/providers/fetch/address-policy.ts";

/** [address, allowed on port 443?, note]. Public addresses used: 93.184.215.14, 8.8.8.8, 2606:4700::1111. */
const TABLE: Array<[string, boolean, string]> = [
  ["93.184.215.14", true, "public IPv4"],
  ["8.8.8.8", true, "public IPv4"],
  ["2606:4700::1111", true, "public IPv6"],
  ["[2606:4700::1111]", true, "bracketed URL host form"],
  ["127.0.0.1", false, "loopback"],
  ["127.255.255.254", false, "loopback /8"],
  ["10.0.0.1", false, "private"],
  ["172.16.5.4", false, "private"],
  ["192.168.1.1", false, "private"],
  ["169.254.169.254", false, "link-local (cloud metadata)"],
  ["100.64.0.1", false, "CGNAT"],
  ["0.0.0.0", false, "unspecified"],
  ["255.255.255.255", false, "broadcast"],
  ["224.0.0.1", false, "multicast"],
  ["240.0.0.1", false, "reserved"],
  ["192.0.2.1", false, "documentation (TEST-NET-1)"],
  ["::1", false, "IPv6 loopback"],
  ["::", false, "IPv6 unspecified"],
  ["fe80::1", false, "IPv6 link-local"],
  ["fe80::1%eth0", false, "IPv6 link-local with zone"],
  ["fc00::1", false, "unique local"],
  ["fd12:3456::1", false, "unique local"],
  ["ff02::1", false, "IPv6 multicast"],
  ["2001:db8::1", false, "IPv6 documentation"],
  ["::ffff:127.0.0.1", false, "IPv4-mapped loopback"],
  ["::ffff:7f00:1", false, "IPv4-mapped loopback, hex"],
  ["::ffff:10.0.0.1", false, "IPv4-mapped private"],
  ["::ffff:169.254.169.254", false, "IPv4-mapped metadata"],
  ["::ffff:93.184.215.14", true, "IPv4-mapped public"],
  ["::7f00:1", false, "IPv4-compatible loopback"],
  ["::127.0.0.1", false, "IPv4-compatible loopback, dotted"],
  ["::a00:1", false, "IPv4-compatible private"],
  ["::a9fe:a9fe", false, "IPv4-compatible metadata"],
  ["::ffff:0:7f00:1", false, "IPv4-translated (RFC 6145) loopback"],
  ["64:ff9b::7f00:1", false, "NAT64 loopback"],
  ["64:ff9b::10.0.0.1", false, "NAT64 private"],
  ["64:ff9b::a9fe:a9fe", false, "NAT64 metadata"],
  ["64:ff9b:1::a00:1", false, "local-use NAT64 (RFC 8215) private"],
  ["64:ff9b::5db8:d70e", true, "NAT64 of a public IPv4"],
  ["2002:7f00:1::", false, "6to4 of loopback"],
  ["2002:a00:1::1", false, "6to4 of private"],
  ["2002:a9fe:a9fe::", false, "6to4 of metadata"],
  ["2002:5db8:d70e::1", true, "6to4 of a public IPv4"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false, "Teredo"],
  ["not-an-ip", false, "not an address literal"],
  ["", false, "empty"],
];

test(`address table: ${TABLE.length} addresses, embedded IPv4 forms judged as the IPv4 they carry`, () => {
  assert.ok(TABLE.length >= 30);
  for (const [address, allowed, note] of TABLE) {
    const reason = checkDestination(address, 443);
    assert.equal(reason === undefined, allowed, `${address} (${note}): ${reason ?? "allowed"}`);
    if (!allowed) assert.equal(reason, "address", `${address} (${note})`);
  }
});

test("loopback in every embedding form is loopback (test-only loopback port admits them all, only on that port)", () => {
  for (const a of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "::7f00:1", "64:ff9b::7f00:1", "2002:7f00:1::"]) {
    assert.equal(isLoopback(a), true, a);
    assert.equal(checkDestination(a, 4321, 4321), undefined, a);
    assert.equal(checkDestination(a, 4322, 4321), "address", a);
  }
  assert.equal(classifyAddress("::"), "unspecified");
  assert.equal(classifyAddress("::1"), "loopback");
});

test("a public address on a non-standard port is refused for the port", () => {
  assert.equal(checkDestination("93.184.215.14", 8443), "port");
  assert.equal(checkDestination("93.184.215.14", 80), undefined);
});
