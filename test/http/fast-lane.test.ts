/**
 * The /mcp fast lane (src/app.ts `withFastLane`): a POST on exactly the endpoint's path without an Origin
 * is served without Express's routing, with the same access log line and answers; other spellings of the
 * path and requests with an Origin take the router, with the same results. A tools/call's envelope
 * `request_id` is the request id of its access log line.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { createLogger } from "../../src/log.ts";
import { startTestApp } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});
const app = await startTestApp({
  queue: false,
  logger: createLogger("info", sink),
  env: { CORS_ALLOWED_ORIGINS: "https://app.example" },
});
const who = await app.user();
const { token } = await connect(app, who, ["read:profile"]);

/** The access log line of the request whose id is `requestId` (it is written when the response ends). */
async function accessLine(requestId: string): Promise<Record<string, unknown> | undefined> {
  for (let i = 0; i < 50; i++) {
    const line = lines.find((l) => l.msg === "request" && l.requestId === requestId);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

test("a tools/call on the fast lane is logged once, under the envelope's request_id", async () => {
  const r = await rpc(app.resource, "tools/call", { name: "get_profile", arguments: {} }, { token });
  assert.equal(r.status, 200);
  const envelope = r.body.result.structuredContent;
  assert.equal(envelope.status, "succeeded");
  const line = await accessLine(envelope.request_id);
  assert.ok(line, "an access log line carries the envelope's request_id");
  assert.equal(line.method, "POST");
  assert.equal(line.path, "/mcp");
  assert.equal(line.status, 200);
  assert.equal(lines.filter((l) => l.requestId === envelope.request_id && l.msg === "request").length, 1);
});

test("other spellings of the path and requests with an Origin get the router's same answers", async () => {
  for (const url of [app.resource, `${app.resource}/`, app.resource.replace(/\/mcp$/, "/MCP")]) {
    const listed = await rpc(url, "tools/list", {}, { token });
    assert.equal(listed.status, 200, url);
    assert.ok(listed.body.result.tools.some((t: { name: string }) => t.name === "get_profile"));
    const anonymous = await rpc(url, "tools/list", {}, { validate: false });
    assert.equal(anonymous.status, 401, url);
    assert.match(anonymous.headers.get("www-authenticate") ?? "", /^Bearer resource_metadata=/);
  }
  const cors = await rpc(
    app.resource,
    "tools/list",
    {},
    { token, headers: { origin: "https://app.example" } },
  );
  assert.equal(cors.status, 200);
  assert.equal(cors.headers.get("access-control-allow-origin"), "https://app.example");
  const plain = await rpc(app.resource, "tools/list", {}, { token });
  assert.equal(plain.headers.get("access-control-allow-origin"), null, "no CORS headers without an Origin");
});
