/**
 * Protocol revisions over the real endpoint (mcp-protocol.md): the 2026-07-28 validation order and codes,
 * server/discover, resultType and serverInfo on results; legacy initialize negotiation, ping,
 * the MCP-Protocol-Version requirement. Every JSON-RPC answer is schema-validated by the client helper.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startTestApp } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { SERVER_CAPABILITIES } from "../../src/mcp/server-info.ts";
import { fixtureTool, startFixtureEndpoint } from "./fixture.ts";

const tools = [fixtureTool({ name: "hello" }, async () => ({ data: { hi: true } }))];
const app = await startTestApp({ queue: false });
const ep = await startFixtureEndpoint(app, tools);
const { token } = await ep.connect(await app.user(), ["read:profile"]);
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

describe("2026-07-28 validation order", () => {
  it("1. missing MCP-Protocol-Version -> 400 / -32020 echoing the id", async () => {
    const r = await rpc(
      ep.url,
      "tools/list",
      {},
      { token, id: 11, headers: { "mcp-protocol-version": undefined } },
    );
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, -32020);
    assert.equal(r.body.id, 11);
  });

  it("2. missing _meta, protocolVersion or clientCapabilities -> 400 / -32602", async () => {
    for (const meta of [
      false,
      { "io.modelcontextprotocol/clientCapabilities": {} },
      { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    ] as const) {
      const r = await rpc(ep.url, "server/discover", {}, { token, id: 12, meta });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, -32602);
      assert.equal(r.body.id, 12);
    }
  });

  it("serves a request whose _meta has no clientInfo", async () => {
    const r = await rpc(ep.url, "server/discover", {}, { token, meta: META });
    assert.equal(r.status, 200);
  });

  it("3. header differing from the body (version, method, name) -> 400 / -32020", async () => {
    const version = await rpc(
      ep.url,
      "server/discover",
      {},
      { token, meta: { ...META, "io.modelcontextprotocol/protocolVersion": "v999" } },
    );
    assert.equal(version.status, 400);
    assert.equal(version.body.error.code, -32020);
    const method = await rpc(ep.url, "tools/list", {}, { token, headers: { "mcp-method": "prompts/list" } });
    assert.equal(method.body.error.code, -32020);
    const missingMethod = await rpc(
      ep.url,
      "tools/list",
      {},
      { token, headers: { "mcp-method": undefined } },
    );
    assert.equal(missingMethod.body.error.code, -32020);
    const caseValue = await rpc(ep.url, "tools/list", {}, { token, headers: { "mcp-method": "TOOLS/LIST" } });
    assert.equal(caseValue.body.error.code, -32020);
    const name = await rpc(
      ep.url,
      "tools/call",
      { name: "hello", arguments: {} },
      { token, headers: { "mcp-name": "other" } },
    );
    assert.equal(name.status, 400);
    assert.equal(name.body.error.code, -32020);
    const noName = await rpc(
      ep.url,
      "tools/call",
      { name: "hello", arguments: {} },
      { token, headers: { "mcp-name": undefined } },
    );
    assert.equal(noName.body.error.code, -32020);
    const badB64 = await rpc(
      ep.url,
      "tools/call",
      { name: "hello", arguments: {} },
      { token, headers: { "mcp-name": "=?base64?aGVsbG8?=" } },
    );
    assert.equal(badB64.body.error.code, -32020);
  });

  it("accepts trimmed whitespace, any header-name case and Base64-encoded values", async () => {
    const spaced = await rpc(
      ep.url,
      "tools/call",
      { name: "hello", arguments: {} },
      { token, headers: { "mcp-name": "  hello  " } },
    );
    assert.equal(spaced.status, 200);
    const b64 = await rpc(
      ep.url,
      "tools/call",
      { name: "hello", arguments: {} },
      { token, headers: { "mcp-name": `=?base64?${Buffer.from("hello").toString("base64")}?=` } },
    );
    assert.equal(b64.status, 200);
    assert.equal(b64.body.result.structuredContent.status, "succeeded");
  });

  it("4. unsupported version -> 400 / -32022 with supported and requested", async () => {
    const r = await rpc(
      ep.url,
      "server/discover",
      {},
      {
        token,
        id: "v",
        headers: { "mcp-protocol-version": "v999.0.0" },
        meta: { ...META, "io.modelcontextprotocol/protocolVersion": "v999.0.0" },
      },
    );
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, -32022);
    assert.deepEqual(r.body.error.data, {
      supported: ["2026-07-28", "2025-11-25", "2025-06-18"],
      requested: "v999.0.0",
    });
    assert.equal(r.body.id, "v");
  });

  it("5. unknown and removed methods -> 404 / -32601", async () => {
    for (const method of [
      "unknown/method",
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "roots/list",
    ]) {
      const r = await rpc(ep.url, method, {}, { token, id: 5 });
      assert.equal(r.status, 404, method);
      assert.equal(r.body.error.code, -32601, method);
      assert.equal(r.body.id, 5);
    }
  });
});

describe("2026-07-28 results", () => {
  it("server/discover lists versions, capabilities, instructions, cache hints and serverInfo in _meta", async () => {
    const r = await rpc(ep.url, "server/discover", {}, { token });
    const result = r.body.result;
    assert.equal(result.resultType, "complete");
    assert.deepEqual(result.supportedVersions, ["2026-07-28", "2025-11-25", "2025-06-18"]);
    assert.deepEqual(result.capabilities, SERVER_CAPABILITIES);
    assert.match(result.instructions, /approval_url/);
    assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0);
    assert.equal(result.cacheScope, "public");
    assert.equal(result._meta["io.modelcontextprotocol/serverInfo"].name, "social-mcp");
  });

  it("tools/list and tools/call carry resultType and serverInfo; tools/list is private-cacheable", async () => {
    const list = await rpc(ep.url, "tools/list", {}, { token });
    assert.equal(list.body.result.resultType, "complete");
    assert.equal(list.body.result.cacheScope, "private");
    assert.ok(Number.isInteger(list.body.result.ttlMs));
    assert.ok(list.body.result._meta["io.modelcontextprotocol/serverInfo"]);
    const call = await rpc(ep.url, "tools/call", { name: "hello", arguments: {} }, { token });
    assert.equal(call.body.result.resultType, "complete");
    assert.equal(call.headers.get("mcp-session-id"), null);
  });
});

describe("legacy revisions", () => {
  const init = (protocolVersion: string) =>
    rpc(
      ep.url,
      "initialize",
      { protocolVersion, capabilities: {}, clientInfo: { name: "legacy", version: "1" } },
      { revision: "2025-11-25", token },
    );

  it("initialize answers the requested legacy version, else the latest legacy one, never 2026-07-28", async () => {
    assert.equal((await init("2025-11-25")).body.result.protocolVersion, "2025-11-25");
    const old = await rpc(
      ep.url,
      "initialize",
      { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "l", version: "1" } },
      { revision: "2025-06-18", token },
    );
    assert.equal(old.body.result.protocolVersion, "2025-06-18");
    assert.equal((await init("2026-07-28")).body.result.protocolVersion, "2025-11-25");
    const unknown = await init("2024-11-05");
    assert.equal(unknown.body.result.protocolVersion, "2025-11-25");
    assert.equal(unknown.body.result.serverInfo.name, "social-mcp");
    assert.deepEqual(unknown.body.result.capabilities, SERVER_CAPABILITIES);
    assert.equal(unknown.body.result.resultType, undefined);
  });

  it("serves an initialize that carries modern _meta but no version header as legacy", async () => {
    const r = await rpc(
      ep.url,
      "initialize",
      {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "dual", version: "1" },
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
      },
      { revision: "2025-11-25", token },
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.result.protocolVersion, "2025-11-25");
  });

  it("ping answers {} and results carry no resultType", async () => {
    const ping = await rpc(ep.url, "ping", {}, { revision: "2025-11-25", token });
    assert.deepEqual(ping.body.result, {});
    const list = await rpc(ep.url, "tools/list", {}, { revision: "2025-06-18", token });
    assert.equal(list.body.result.resultType, undefined);
    assert.equal(list.body.result.ttlMs, undefined);
    const call = await rpc(
      ep.url,
      "tools/call",
      { name: "hello", arguments: {} },
      { revision: "2025-11-25", token },
    );
    assert.equal(call.body.result.resultType, undefined);
    assert.deepEqual(call.body.result.structuredContent.data, { hi: true });
  });

  it("requires MCP-Protocol-Version after initialize (400) and answers unknown methods with -32601", async () => {
    const missing = await rpc(
      ep.url,
      "tools/list",
      {},
      { revision: "2025-11-25", token, headers: { "mcp-protocol-version": undefined } },
    );
    assert.equal(missing.status, 400);
    const unknown = await rpc(
      ep.url,
      "v999",
      {},
      { revision: "2025-11-25", token, headers: { "mcp-protocol-version": "2024-01-01" }, validate: false },
    );
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, -32022);
    const method = await rpc(ep.url, "roots/list", {}, { revision: "2025-11-25", token });
    assert.equal(method.body.error.code, -32601);
  });
});
