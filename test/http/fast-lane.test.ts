/**
 * The /mcp fast lane (src/app.ts `withFastLane`): a POST on exactly the endpoint's path without an Origin
 * is served without Express's routing, with the same access log line and answers; other spellings of the
 * path and requests with an Origin take the router, with the same results. A tools/call's envelope
 * `request_id` is the request id of its access log line.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { test } from "node:test";
import express from "express";
import { withFastLane } from "../../src/app.ts";
import { createLogger } from "../../src/log.ts";
import { mcpEndpoint } from "../../src/mcp/routes.ts";
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

test("the fast lane serves a POST on the exact path without an Origin without Express's routing", async () => {
  const mcp = mcpEndpoint(app.ctx);
  const routed: string[] = [];
  const ex = express();
  ex.use((req, _res, next) => {
    routed.push(`${req.method} ${req.url} ${req.headers.origin ?? "-"}`);
    next();
  });
  ex.use(mcp.router);
  const server = http.createServer(withFastLane(app.ctx, ex, mcp));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  // The Host header names the resource (the endpoint checks it); the server listens on another port.
  const post = (path: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path,
          method: "POST",
          headers: { host: new URL(app.resource).host, "content-type": "application/json", ...headers },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    });
  try {
    assert.equal(await post("/mcp"), 401);
    assert.equal(await post("/mcp?x=1"), 401);
    assert.deepEqual(routed, [], "the exact path without an Origin never reached the app's middleware");
    assert.equal(await post("/mcp/"), 401);
    assert.equal(await post("/mcp", { origin: "https://app.example" }), 401);
    assert.deepEqual(routed, ["POST /mcp/ -", "POST /mcp https://app.example"]);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
