/**
 * The developer reference routes (service spec 4.6) over real HTTP: content types, strong ETags with
 * If-None-Match -> 304, caching headers, the page's CSP (hash of its one inline script, frame-ancestors
 * 'none'), the catalog served byte for byte, and 404 when MCP is disabled.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../../codegen/format.ts";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ queue: false });
const catalogFile = await readFile(path.join(REPO_ROOT, "generated/catalog.json"));
const guideFile = await readFile(path.join(REPO_ROOT, "generated/guide.md"));

async function get(p: string, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + p, { headers });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

test("catalog.json is generated/catalog.json, byte for byte, as application/json", async () => {
  const { res, body } = await get("/developers/mcp/catalog.json");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.ok(body.equals(catalogFile));
  assert.equal(res.headers.get("cache-control"), "public, max-age=300");
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
});

test("guide.md is text/markdown; charset=utf-8", async () => {
  const { res, body } = await get("/developers/mcp/guide.md");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
  assert.ok(body.equals(guideFile));
});

test("strong ETags: the hash of the bytes; If-None-Match gives 304, a different tag 200", async () => {
  for (const p of ["/developers/mcp", "/developers/mcp/catalog.json", "/developers/mcp/guide.md"]) {
    const first = await get(p);
    const etag = first.res.headers.get("etag") ?? "";
    assert.equal(etag, `"${createHash("sha256").update(first.body).digest("base64url")}"`, p);
    const again = await get(p);
    assert.equal(again.res.headers.get("etag"), etag, `${p}: stable ETag`);

    const cached = await get(p, { "if-none-match": etag });
    assert.equal(cached.res.status, 304, p);
    assert.equal(cached.body.length, 0);
    assert.equal(cached.res.headers.get("etag"), etag);
    assert.equal(cached.res.headers.get("cache-control"), "public, max-age=300");

    assert.equal(
      (await get(p, { "if-none-match": `"other", W/${etag}` })).res.status,
      304,
      `${p}: weak match`,
    );
    assert.equal((await get(p, { "if-none-match": '"other"' })).res.status, 200, p);
  }
});

test("the page: HTML with every tool, its inline script allowed by hash, no external resources", async () => {
  const { res, body } = await get("/developers/mcp");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
  const html = body.toString("utf8");
  const catalog = JSON.parse(catalogFile.toString("utf8")) as { tools: Array<{ name: string }> };
  for (const t of catalog.tools) assert.ok(html.includes(`data-name="${t.name}"`), t.name);
  assert.match(html, /<h2 id="connecting">Connecting<\/h2>/);

  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? "");
  assert.equal(scripts.length, 1);
  const hash = createHash("sha256").update(scripts[0]!, "utf8").digest("base64");
  assert.ok(csp.includes(`script-src 'sha256-${hash}'`), csp);
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href="https?:/);
});

test("with MCP disabled every reference route is 404", async () => {
  const off = await startTestApp({ queue: false, env: { MCP_ENABLED: "false" } });
  for (const p of [
    "/developers/mcp",
    "/developers/mcp/catalog.json",
    "/developers/mcp/guide.md",
    "/developers/mcp/download.zip",
  ]) {
    const res = await fetch(off.url + p);
    assert.equal(res.status, 404, p);
    await res.arrayBuffer();
  }
});
