/**
 * The tool pipeline through the real endpoint with fixture tools: unknown tool, 403 scope challenge,
 * unknown and invalid arguments, plan check, per-user budget, handler failures, output validation, the
 * envelope and the audit row (argument names only), SSE progress.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolError } from "../../src/errors.ts";
import { startTestApp } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { fixtureTool, startFixtureEndpoint } from "../mcp/fixture.ts";

const SECRET = "s3cr3t-caption-value-never-stored";

const tools = [
  fixtureTool(
    {
      name: "echo",
      inputSchema: {
        type: "object",
        additionalProperties: false,
        properties: { caption: { type: "string", maxLength: 100 }, count: { type: "integer", minimum: 1 } },
        required: ["caption"],
      },
      data: {
        type: "object",
        additionalProperties: false,
        properties: { length: { type: "integer" } },
        required: ["length"],
      },
    },
    async (input: { caption: string }) => ({ data: { length: input.caption.length } }),
  ),
  fixtureTool(
    {
      name: "either",
      inputSchema: {
        type: "object",
        additionalProperties: false,
        properties: {
          v: {
            oneOf: [
              { type: "integer", minimum: 5 },
              { type: "integer", maximum: 1 },
            ],
          },
        },
        required: ["v"],
      },
    },
    async () => ({ data: {} }),
  ),
  fixtureTool({ name: "needs_jobs", scope: "read:jobs" }, async () => ({ data: {} })),
  fixtureTool({ name: "pro_only", plan: "pro", scope: "read:analytics" }, async () => ({ data: {} })),
  fixtureTool({ name: "fails_domain" }, async () => {
    throw new ToolError("not_found", "post not found");
  }),
  fixtureTool({ name: "fails_internal" }, async () => {
    throw new Error(`database said ${SECRET}`);
  }),
  fixtureTool(
    { name: "bad_output", data: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } },
    async () => ({ data: { n: "not a number" } }),
  ),
  fixtureTool({ name: "slow_progress" }, async (_input, ctx) => {
    ctx.progress(1, 3, "one");
    ctx.progress(2, 3, "two");
    return { data: { done: true } };
  }),
  fixtureTool(
    {
      name: "write_thing",
      access: "write",
      budget: "write",
      scope: "create:content",
      annotations: {
        title: "write thing",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      inputSchema: {
        type: "object",
        additionalProperties: false,
        properties: { idempotency_key: { type: "string", format: "uuid" } },
        required: ["idempotency_key"],
      },
    },
    async (_input, ctx) => {
      const row = await ctx.db.raw("select 1 as one");
      return { data: { one: row.rows[0].one } };
    },
  ),
];

const app = await startTestApp({ queue: false, env: { RATE_LIMIT_READS: "1000" } });
const ep = await startFixtureEndpoint(app, tools);
const who = await app.user();
const { token } = await ep.connect(who, ["read:profile", "create:content"]);
const limitedApp = await startTestApp({
  queue: false,
  env: { RATE_LIMIT_READS: "2", RATE_LIMIT_WRITES: "2" },
});
const limitedEp = await startFixtureEndpoint(limitedApp, tools);

describe("callTool pipeline", () => {
  const call = (name: string, args: unknown, t = token, extra: Parameters<typeof rpc>[3] = {}) =>
    rpc(ep.url, "tools/call", { name, arguments: args }, { token: t, ...extra });

  it("returns the envelope in structuredContent and as JSON text", async () => {
    const r = await call("echo", { caption: "hello" });
    assert.equal(r.status, 200);
    const result = r.body.result;
    assert.equal(result.resultType, "complete");
    assert.equal(result.isError, undefined);
    assert.equal(result.structuredContent.status, "succeeded");
    assert.deepEqual(result.structuredContent.data, { length: 5 });
    assert.match(result.structuredContent.request_id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  });

  it("lists each schema failure once, even when several oneOf branches report it", async () => {
    const r = await call("either", { v: "text" });
    const sc = r.body.result.structuredContent;
    assert.equal(sc.error.code, "validation_failed");
    const keys = sc.error.details.map((d: { instancePath: string; keyword: string; message: string }) =>
      [d.instancePath, d.keyword, d.message].join(" "),
    );
    assert.ok(keys.some((k: string) => k.startsWith("/v type")));
    assert.equal(new Set(keys).size, keys.length);
  });

  it("answers an unknown tool with JSON-RPC -32602", async () => {
    const r = await call("no_such_tool", {});
    assert.equal(r.body.error.code, -32602);
  });

  it("answers a known tool without its scope with HTTP 403 and an insufficient_scope challenge", async () => {
    const r = await call("needs_jobs", {}, token, { validate: false });
    assert.equal(r.status, 403);
    const challenge = r.headers.get("www-authenticate") ?? "";
    assert.match(challenge, /^Bearer error="insufficient_scope"/);
    assert.match(challenge, /scope="read:jobs"/);
    assert.match(
      challenge,
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const legacy = await call("needs_jobs", {}, token, { revision: "2025-11-25", validate: false });
    assert.equal(legacy.status, 403);
  });

  it("rejects an unknown argument with invalid_arguments naming it", async () => {
    const r = await call("echo", { caption: "x", colour: "red" });
    const sc = r.body.result.structuredContent;
    assert.equal(r.body.result.isError, true);
    assert.equal(sc.status, "failed");
    assert.equal(sc.error.code, "invalid_arguments");
    assert.match(sc.error.message, /"colour"/);
    assert.equal(sc.error.request_id, sc.request_id);
  });

  it("rejects a schema violation with validation_failed and JSON pointers", async () => {
    const r = await call("echo", { caption: "x", count: 0 });
    const sc = r.body.result.structuredContent;
    assert.equal(sc.error.code, "validation_failed");
    assert.deepEqual(
      sc.error.details.map((d: { instancePath: string; keyword: string }) => [d.instancePath, d.keyword]),
      [["/count", "minimum"]],
    );
    const missing = await call("echo", {});
    assert.equal(missing.body.result.structuredContent.error.code, "validation_failed");
  });

  it("refuses a Pro tool on the creator plan with forbidden", async () => {
    const { token: t } = await ep.connect(who, ["read:analytics"]);
    const r = await call("pro_only", {}, t);
    const sc = r.body.result.structuredContent;
    assert.equal(sc.error.code, "forbidden");
    assert.match(sc.error.message, /pro plan/);
    const pro = await app.user({ plan: "pro" });
    const { token: pt } = await ep.connect(pro, ["read:analytics"]);
    assert.equal((await call("pro_only", {}, pt)).body.result.structuredContent.status, "succeeded");
  });

  it("turns a ToolError into an isError result with its code", async () => {
    const r = await call("fails_domain", {});
    assert.equal(r.body.result.isError, true);
    assert.equal(r.body.result.structuredContent.error.code, "not_found");
  });

  it("turns any other exception into internal_error without leaking its message", async () => {
    const r = await call("fails_internal", {});
    assert.equal(r.body.result.structuredContent.error.code, "internal_error");
    assert.ok(!r.text.includes(SECRET));
  });

  it("turns output that breaks the output schema into internal_error", async () => {
    const r = await call("bad_output", {});
    assert.equal(r.status, 200);
    assert.equal(r.body.result.structuredContent.error.code, "internal_error");
    assert.ok(!r.text.includes("not a number"));
  });

  it("runs write tools through the idempotency transaction", async () => {
    const r = await call("write_thing", { idempotency_key: "0b6f3c1e-4a6f-4f7e-9a53-2f3c2d9b1c11" });
    assert.deepEqual(r.body.result.structuredContent.data, { one: 1 });
  });

  it("writes one audit row per call with argument names but no values", async () => {
    const r = await call("echo", { caption: SECRET, count: 7 });
    const requestId = r.body.result.structuredContent.request_id;
    const rows = await app.ctx.db("audit_records").where({ request_id: requestId });
    assert.equal(rows.length, 1);
    const row = rows[0];
    assert.deepEqual(row.argument_names, ["caption", "count"]);
    assert.equal(row.tool, "echo");
    assert.equal(row.user_id, who.user_id);
    assert.equal(row.workspace_id, who.workspace_id);
    assert.equal(row.status, "succeeded");
    assert.equal(row.error_code, null);
    assert.ok(row.duration_ms >= 0);
    assert.ok(!JSON.stringify(row).includes(SECRET));
    // The number argument is stored nowhere (only the duration is a number of the call itself).
    assert.ok(Object.entries(row).every(([k, v]) => k === "duration_ms" || (v !== 7 && v !== "7")));
    assert.ok(row.argument_names.every((n: string) => !/\d/.test(n)));
    const failed = await call("echo", { caption: "x", bogus: SECRET });
    const frow = await app.ctx
      .db("audit_records")
      .where({ request_id: failed.body.result.structuredContent.request_id })
      .first();
    assert.equal(frow.error_code, "invalid_arguments");
    assert.deepEqual(frow.argument_names, ["bogus", "caption"]);
    const all = JSON.stringify(await app.ctx.db("audit_records").select());
    assert.ok(!all.includes(SECRET));
  });

  it("streams progress on SSE when the request has a progressToken and accepts text/event-stream", async () => {
    const r = await call("slow_progress", {}, token, { meta: undefined, headers: {}, id: 7 });
    assert.equal(r.headers.get("content-type")?.startsWith("application/json"), true);
    const streamed = await rpc(
      ep.url,
      "tools/call",
      { name: "slow_progress", arguments: {}, _meta: { progressToken: "p1" } },
      { token, id: 8 },
    );
    assert.match(streamed.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(streamed.headers.get("x-accel-buffering"), "no");
    assert.deepEqual(
      streamed.events.slice(0, -1).map((e) => [e.method, e.params.progressToken, e.params.progress]),
      [
        ["notifications/progress", "p1", 1],
        ["notifications/progress", "p1", 2],
      ],
    );
    assert.equal(streamed.body.id, 8);
    assert.equal(streamed.body.result.structuredContent.status, "succeeded");
    const jsonOnly = await rpc(
      ep.url,
      "tools/call",
      { name: "slow_progress", arguments: {}, _meta: { progressToken: "p2" } },
      { token, headers: { accept: "application/json" } },
    );
    assert.match(jsonOnly.headers.get("content-type") ?? "", /^application\/json/);
  });
});

describe("per-user budget", () => {
  it("answers rate_limited with retry_after once the read budget is spent, shared across clients", async () => {
    const who = await limitedApp.user();
    const a = await limitedEp.connect(who, ["read:profile"]);
    const b = await limitedEp.connect(who, ["read:profile"]);
    const call = (t: string) =>
      rpc(limitedEp.url, "tools/call", { name: "echo", arguments: { caption: "x" } }, { token: t });
    assert.equal((await call(a.token)).body.result.structuredContent.status, "succeeded");
    assert.equal((await call(b.token)).body.result.structuredContent.status, "succeeded");
    const limited = await call(a.token);
    assert.equal(limited.status, 200);
    const sc = limited.body.result.structuredContent;
    assert.equal(limited.body.result.isError, true);
    assert.equal(sc.error.code, "rate_limited");
    assert.ok(
      Number.isInteger(sc.error.retry_after) && sc.error.retry_after >= 1 && sc.error.retry_after <= 60,
    );
    const other = await limitedApp.user();
    const c = await limitedEp.connect(other, ["read:profile"]);
    assert.equal((await call(c.token)).body.result.structuredContent.status, "succeeded");
  });

  it("answers an exact retry of a finished write from its record with a read unit, not the write budget", async () => {
    const who = await limitedApp.user();
    const { token: t } = await limitedEp.connect(who, ["create:content"]);
    const write = (key: string) =>
      rpc(
        limitedEp.url,
        "tools/call",
        { name: "write_thing", arguments: { idempotency_key: key } },
        { token: t },
      );
    const keys = ["3f0e7a52-1b7c-4d3e-9a41-6c2b8d0e5f11", "3f0e7a52-1b7c-4d3e-9a41-6c2b8d0e5f12"];
    const first = (await write(keys[0]!)).body.result.structuredContent;
    assert.equal(first.status, "succeeded");
    assert.equal((await write(keys[1]!)).body.result.structuredContent.status, "succeeded");
    const spent = (await write("3f0e7a52-1b7c-4d3e-9a41-6c2b8d0e5f13")).body.result.structuredContent;
    assert.equal(spent.error.code, "rate_limited");
    const retry = (await write(keys[0]!)).body.result.structuredContent;
    assert.deepEqual(retry, first);
    assert.deepEqual((await write(keys[1]!)).body.result.structuredContent.status, "succeeded");
    const third = (await write(keys[0]!)).body.result.structuredContent;
    assert.equal(third.error.code, "rate_limited", "the read budget of 2 is spent by the two retries");
  });

  it("a call refused for its arguments or its scope still spends a unit of its tool's budget", async () => {
    const who = await limitedApp.user();
    const { token: t } = await limitedEp.connect(who, ["create:content"]);
    const { token: noScope } = await limitedEp.connect(who, ["read:profile"]);
    const write = (args: Record<string, unknown>, as = t) =>
      rpc(limitedEp.url, "tools/call", { name: "write_thing", arguments: args }, { token: as });
    assert.equal((await write({})).body.result.structuredContent.error.code, "validation_failed");
    assert.equal((await write({ idempotency_key: "x" }, noScope)).status, 403);
    const refused = (await write({ idempotency_key: "3f0e7a52-1b7c-4d3e-9a41-6c2b8d0e5f21" })).body.result;
    assert.equal(
      refused.structuredContent.error.code,
      "rate_limited",
      "2 refused calls spent the write budget of 2",
    );
    assert.equal(
      (await write({ nope: 1 })).body.result.structuredContent.error.code,
      "invalid_arguments",
      "a refused call keeps its own answer once the budget is spent",
    );
  });
});
