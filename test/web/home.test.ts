import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ queue: false });

test("the landing page names the MCP endpoint and links the reference, settings and media", async () => {
  const res = await fetch(`${app.url}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  const text = await res.text();
  assert.ok(text.includes(app.resource));
  for (const href of ["/developers/mcp", "/settings/integrations/mcp", "/media", "/login"]) {
    assert.ok(text.includes(`href="${href}"`), href);
  }
});
