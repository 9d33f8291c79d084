/**
 * tools/list (service spec 5.9, mcp-protocol.md "tools/list"): scope filtering for several scope sets,
 * deterministic order, pagination with opaque tamper-checked cursors, identical bytes for identical scopes,
 * the same tool shape in both revisions.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startTestApp } from "../helpers/app.ts";
import { TOOLS } from "../../generated/registry.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";
import { fixtureTool, startFixtureEndpoint } from "./fixture.ts";

const def = (name: string, scope: string) =>
  fixtureTool({ name, scope: scope as never }, async () => ({ data: {} }));
const tools = [
  def("a_profile", "read:profile"),
  def("b_jobs", "read:jobs"),
  def("c_profile", "read:profile"),
  def("d_content", "read:content"),
  def("e_create", "create:content"),
  def("f_profile", "read:profile"),
  def("g_workspace", "read:workspace"),
];

const app = await startTestApp({ queue: false, env: { TOOLS_PAGE_SIZE: "2" } });
const ep = await startFixtureEndpoint(app, tools);
const who = await app.user();

/** Follows every cursor; returns the names in order and the raw page texts. */
async function listAll(token: string, revision: "2026-07-28" | "2025-11-25" = "2026-07-28") {
  const names: string[] = [];
  const texts: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const r = await rpc(ep.url, "tools/list", cursor ? { cursor } : {}, { token, revision, id: i });
    assert.equal(r.status, 200);
    texts.push(r.text);
    names.push(...r.body.result.tools.map((t: { name: string }) => t.name));
    cursor = r.body.result.nextCursor;
    if (!cursor) return { names, texts };
  }
  throw new Error("too many pages");
}

describe("tools/list", () => {
  it("lists only the tools the token's scopes allow, in name order", async () => {
    const cases: Array<[string[], string[]]> = [
      [["read:profile"], ["a_profile", "c_profile", "f_profile"]],
      [
        ["read:profile", "read:jobs"],
        ["a_profile", "b_jobs", "c_profile", "f_profile"],
      ],
      [
        ["create:content", "read:workspace"],
        ["e_create", "g_workspace"],
      ],
      [["read:analytics"], []],
      [
        ["read:profile", "read:jobs", "read:content", "create:content", "read:workspace"],
        ["a_profile", "b_jobs", "c_profile", "d_content", "e_create", "f_profile", "g_workspace"],
      ],
    ];
    for (const [scopes, expected] of cases) {
      const { token } = await ep.connect(who, scopes);
      assert.deepEqual((await listAll(token)).names, expected, scopes.join(" "));
    }
  });

  it("pages by the configured size and gives identical bytes for the same scopes", async () => {
    const one = await ep.connect(who, ["read:profile", "read:jobs"]);
    const two = await ep.connect(who, ["read:jobs", "read:profile"]);
    const a = await listAll(one.token);
    const b = await listAll(two.token);
    assert.equal(a.texts.length, 2);
    assert.deepEqual(a.texts, b.texts);
    assert.deepEqual((await listAll(one.token)).texts, a.texts);
  });

  it("each tool has name, title, description, inputSchema, outputSchema (object root) and annotations", async () => {
    const { token } = await ep.connect(who, ["read:profile"]);
    const r = await rpc(ep.url, "tools/list", {}, { token });
    for (const tool of r.body.result.tools) {
      assert.deepEqual(Object.keys(tool).sort(), [
        "annotations",
        "description",
        "inputSchema",
        "name",
        "outputSchema",
        "title",
      ]);
      assert.equal(tool.inputSchema.type, "object");
      assert.equal(tool.outputSchema.type, "object");
      assert.deepEqual(Object.keys(tool.annotations).sort(), [
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "readOnlyHint",
        "title",
      ]);
      assert.equal(tool.annotations.title, tool.title);
    }
  });

  it("serves the same tools in the legacy revision (without cache hints)", async () => {
    const { token } = await ep.connect(who, ["read:profile", "read:jobs"]);
    const modern = await rpc(ep.url, "tools/list", {}, { token });
    const legacy = await rpc(ep.url, "tools/list", {}, { token, revision: "2025-11-25" });
    assert.deepEqual(legacy.body.result.tools, modern.body.result.tools);
    assert.equal(legacy.body.result.ttlMs, undefined);
    assert.equal(typeof legacy.body.result.nextCursor, "string");
    assert.deepEqual((await listAll(token, "2025-11-25")).names, [
      "a_profile",
      "b_jobs",
      "c_profile",
      "f_profile",
    ]);
  });

  it("refuses tampered, forged and foreign cursors with -32602", async () => {
    const { token } = await ep.connect(who, ["read:profile", "read:jobs"]);
    const first = await rpc(ep.url, "tools/list", {}, { token });
    const cursor: string = first.body.result.nextCursor;
    const [payload, sig] = cursor.split(".");
    const forged = `${Buffer.from(JSON.stringify({ o: 1, s: "x" })).toString("base64url")}.${sig}`;
    const flipped = `${payload}.${sig?.startsWith("A") ? "B" : "A"}${sig?.slice(1)}`;
    for (const bad of [forged, flipped, "nonsense", "", 42]) {
      const r = await rpc(ep.url, "tools/list", { cursor: bad }, { token, id: 3 });
      assert.equal(r.body.error?.code, -32602, String(bad));
      assert.equal(r.body.id, 3);
    }
    const other = await ep.connect(who, ["read:profile"]);
    const foreign = await rpc(ep.url, "tools/list", { cursor }, { token: other.token });
    assert.equal(foreign.body.error?.code, -32602);
  });
});

describe("tools/list over the generated catalog", () => {
  it("filters the real catalog by scope and lists every tool for every scope", async () => {
    const real = await startTestApp({ queue: false });
    const user = await real.user();
    const names = async (scopes: string[]) => {
      const { token } = await connect(real, user, scopes);
      const r = await rpc(real.resource, "tools/list", {}, { token });
      assert.equal(r.body.result.nextCursor, undefined);
      return r.body.result.tools.map((t: { name: string }) => t.name);
    };
    assert.deepEqual(await names(["read:profile"]), [
      "get_account_settings",
      "get_credit_balance",
      "get_profile",
    ]);
    assert.deepEqual(await names(["read:jobs"]), ["get_job_status"]);
    assert.deepEqual(await names(["read:workspace", "read:analytics"]), [
      "get_account_analytics",
      "get_best_performing_content",
      "get_post_analytics",
      "get_workspace",
    ]);
    const all = await names([...ALL_SCOPES]);
    assert.deepEqual(
      all,
      TOOLS.map((t) => t.name),
    );
    assert.deepEqual(all, [...all].sort());
  });
});
