import assert from "node:assert/strict";
import { test } from "node:test";
import { GuardedFetchError, guardedFetchHtml } from "../../src/providers/fetch/guarded-fetch.ts";
import { JSON_LD_PAGE, META_ONLY_PAGE, OPEN_GRAPH_PAGE } from "../fixtures/product-pages.ts";
import { htmlPage, localServer, redirectTo } from "./fetch-server.ts";

const MiB = 1024 * 1024;

/** A second server that must never receive a request (the block happens before any connection). */
const trap = await localServer({ "/": htmlPage("<title>trap</title>") });

const server = await localServer({
  "/jsonld": htmlPage(JSON_LD_PAGE),
  "/og": htmlPage(OPEN_GRAPH_PAGE),
  "/meta": htmlPage(META_ONLY_PAGE),
  "/hop1": redirectTo("/hop2"),
  "/hop2": redirectTo("/hop3", 301),
  "/hop3": redirectTo((s) => `${s.url}/meta`, 307),
  "/chain1": redirectTo("/chain2"),
  "/chain2": redirectTo("/chain3"),
  "/chain3": redirectTo("/chain4"),
  "/chain4": redirectTo("/meta"),
  "/to-loopback": redirectTo("http://127.0.0.1/"),
  "/to-loopback-port": redirectTo(`http://127.0.0.1:${trap.port}/`),
  "/to-private": redirectTo("http://10.0.0.1/"),
  "/to-ipv6-loopback": redirectTo("http://[::1]/"),
  "/to-metadata": redirectTo("http://169.254.169.254/latest/meta-data/"),
  "/to-mapped": redirectTo("http://[::ffff:127.0.0.1]/"),
  "/to-hostname": redirectTo("http://internal.shop.test/"),
  "/to-file": redirectTo("file:///etc/passwd"),
  "/to-compatible": redirectTo("http://[::7f00:1]/"),
  "/to-nat64": redirectTo("http://[64:ff9b::a9fe:a9fe]/"),
  "/json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  },
  "/big-declared": (_req, res) => {
    res.writeHead(200, { "content-type": "text/html", "content-length": String(3 * MiB) });
    res.end(Buffer.alloc(3 * MiB, 0x61));
  },
  "/big-streamed": (_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = (): void => {
      while (sent < 4 * MiB) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once("drain", pump);
          return;
        }
      }
      res.end();
    };
    pump();
  },
  "/slow": () => {
    // never answers
  },
});

const allow = { allowLoopbackPort: server.port };

async function refused(promise: Promise<unknown>, reason: string) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof GuardedFetchError, `expected GuardedFetchError, got ${String(err)}`);
    assert.equal(err.reason, reason, err.message);
    return true;
  });
}

test("fetches an HTML page on the allowed test loopback port", async () => {
  const page = await guardedFetchHtml(`${server.url}/jsonld`, allow);
  assert.match(page.html, /Glow Serum/);
  assert.equal(page.url, `${server.url}/jsonld`);
  for (const path of ["/og", "/meta"])
    assert.ok((await guardedFetchHtml(`${server.url}${path}`, allow)).bytes > 0);
});

test("without the test-only setting, the loopback server is refused before connecting", async () => {
  const before = server.hits.length;
  await refused(guardedFetchHtml(`${server.url}/jsonld`), "port");
  await refused(guardedFetchHtml(`http://127.0.0.1/`), "address");
  await refused(
    guardedFetchHtml(`http://localhost:${server.port}/`, { resolve: async () => ["127.0.0.1"] }),
    "port",
  );
  assert.equal(server.hits.length, before);
});

test("follows up to three redirects, re-checking each", async () => {
  const page = await guardedFetchHtml(`${server.url}/hop1`, allow);
  assert.equal(page.url, `${server.url}/meta`);
  await refused(guardedFetchHtml(`${server.url}/chain1`, allow), "too_many_redirects");
});

test("redirects to private, loopback, link-local/metadata and IPv6 loopback are refused before any connection", async () => {
  const cases: Array<[string, string]> = [
    ["/to-loopback", "address"],
    ["/to-loopback-port", "port"],
    ["/to-private", "address"],
    ["/to-ipv6-loopback", "address"],
    ["/to-metadata", "address"],
    ["/to-mapped", "address"],
    ["/to-file", "scheme"],
  ];
  for (const [path, reason] of cases) await refused(guardedFetchHtml(`${server.url}${path}`, allow), reason);
  assert.equal(trap.hits.length, 0);
});

test("a redirect to a host name resolving to a private address is refused (resolver injected)", async () => {
  const resolved: string[] = [];
  const resolve = async (host: string) => {
    resolved.push(host);
    return ["10.1.2.3"];
  };
  await refused(guardedFetchHtml(`${server.url}/to-hostname`, { ...allow, resolve }), "address");
  assert.deepEqual(resolved, ["internal.shop.test"]);
  // Any blocked address among several answers blocks the name (no choosing the public one).
  await refused(
    guardedFetchHtml("http://mixed.test/", { resolve: async () => ["93.184.215.14", "192.168.1.1"] }),
    "address",
  );
  for (const bad of [
    "100.64.0.1",
    "224.0.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "fe80::1",
    "fc00::1",
    "::",
    "::ffff:10.0.0.1",
  ]) {
    await refused(guardedFetchHtml("https://bad.test/", { resolve: async () => [bad] }), "address");
  }
  await refused(guardedFetchHtml("https://nx.test/", { resolve: async () => [] }), "dns");
});

test("the connection is pinned to the checked address while the Host header keeps the name", async () => {
  let calls = 0;
  const resolve = async () => {
    calls += 1;
    return ["127.0.0.1"];
  };
  const page = await guardedFetchHtml(`http://shop.test:${server.port}/meta`, { ...allow, resolve });
  assert.match(page.html, /Handmade Mug/);
  assert.equal(calls, 1);
  assert.equal(server.hits.at(-1)?.host, `shop.test:${server.port}`);
});

test("non-HTML, oversize (declared or streamed) and slow answers are refused with clear errors", async () => {
  await refused(guardedFetchHtml(`${server.url}/json`, allow), "content_type");
  await refused(guardedFetchHtml(`${server.url}/big-declared`, allow), "too_large");
  await refused(guardedFetchHtml(`${server.url}/big-streamed`, allow), "too_large");
  await refused(guardedFetchHtml(`${server.url}/slow`, { ...allow, timeoutMs: 300 }), "timeout");
  await refused(guardedFetchHtml(`${server.url}/missing`, allow), "status");
});

test("only http/https on ports 80/443, no credentials", async () => {
  await refused(guardedFetchHtml("ftp://example.com/"), "scheme");
  await refused(guardedFetchHtml("https://user:pw@example.com/"), "scheme");
  await refused(
    guardedFetchHtml("https://example.com:8443/", { resolve: async () => ["93.184.215.14"] }),
    "port",
  );
  await refused(guardedFetchHtml("not a url"), "scheme");
});

test("redirects are bounded whatever the caller asks for, and embedded-IPv4 redirect targets are refused", async () => {
  const counting = await localServer({ "/loop": redirectTo("/loop") });
  await refused(
    guardedFetchHtml(`${counting.url}/loop`, { allowLoopbackPort: counting.port, maxRedirects: 1000 }),
    "too_many_redirects",
  );
  assert.equal(counting.hits.length, 6, "the first request and 5 redirects, no more");
  await refused(guardedFetchHtml(`${server.url}/to-compatible`, allow), "address");
  await refused(guardedFetchHtml(`${server.url}/to-nat64`, allow), "address");
});
