/**
 * What hosts and directory reviewers check (DESIGN.md section 4): the server's identity (title, description,
 * website, PNG and SVG icons served by the service) in server/discover and initialize; every tool's
 * `annotations.title`; hints that match what each tool does, each with its reason in the catalog; and
 * generated/server.json for the MCP registry (schema 2025-12-11, a streamable-http remote at `{base_url}/mcp`).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import sharp from "sharp";
import { REPO_ROOT } from "../../codegen/format.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { startTestApp } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";

const app = await startTestApp({ queue: false });
const me = await app.user();
const { token } = await connect(app, me, [...ALL_SCOPES]);
const catalog = JSON.parse(await readFile(path.join(REPO_ROOT, "generated/catalog.json"), "utf8")) as {
  tools: Array<{
    name: string;
    title: string;
    annotations: Record<string, boolean | string>;
    annotation_reasons: Record<string, string>;
  }>;
};

test("server/discover and initialize carry title, description, website and icons served by the service", async () => {
  const discover = await rpc(app.resource, "server/discover", {}, { token });
  const fromDiscover = discover.body.result._meta["io.modelcontextprotocol/serverInfo"];
  const init = await rpc(
    app.resource,
    "initialize",
    { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    { token, revision: "2025-11-25" },
  );
  for (const info of [fromDiscover, init.body.result.serverInfo]) {
    assert.equal(info.name, "social-mcp");
    assert.equal(info.title, "Social MCP");
    assert.ok(info.description.length > 20 && info.description.length <= 100);
    assert.equal(info.websiteUrl, app.url);
    assert.deepEqual(
      info.icons.map((i: { mimeType: string; sizes: string[] }) => [i.mimeType, i.sizes]),
      [
        ["image/svg+xml", ["any"]],
        ["image/png", ["256x256"]],
      ],
    );
  }
  const [svg, png] = fromDiscover.icons as Array<{ src: string }>;
  const svgRes = await fetch(svg!.src);
  assert.equal(svgRes.headers.get("content-type"), "image/svg+xml");
  assert.equal(svgRes.headers.get("cross-origin-resource-policy"), "cross-origin");
  assert.match(await svgRes.text(), /^<svg /);
  const pngRes = await fetch(png!.src);
  assert.equal(pngRes.headers.get("content-type"), "image/png");
  const meta = await sharp(Buffer.from(await pngRes.arrayBuffer())).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["png", 256, 256]);
  // every other result keeps the short identity
  const list = await rpc(app.resource, "tools/list", {}, { token });
  assert.deepEqual(Object.keys(list.body.result._meta["io.modelcontextprotocol/serverInfo"]).sort(), [
    "name",
    "version",
  ]);
});

test("every tool has annotations.title and one reason per hint", () => {
  for (const t of catalog.tools) {
    assert.equal(t.annotations.title, t.title, t.name);
    for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"])
      assert.ok((t.annotation_reasons[hint] ?? "").length >= 10, `${t.name}.${hint}`);
  }
});

test("hints match what the tools do", () => {
  const hint = (name: string, h: string) => catalog.tools.find((t) => t.name === name)!.annotations[h];
  for (const name of ["generate_captions", "generate_ugc_hooks"])
    assert.equal(hint(name, "readOnlyHint"), true, name);
  for (const name of [
    "enable_automation",
    "update_automation",
    "publish_post",
    "schedule_post",
    "schedule_posts",
  ])
    assert.equal(hint(name, "openWorldHint"), true, name);
  for (const name of [
    "approve_carousel",
    "enable_automation",
    "disable_automation",
    "create_product",
    "schedule_posts",
  ])
    assert.equal(hint(name, "destructiveHint"), false, `${name}: nothing is lost or undone`);
  for (const name of [
    "delete_post",
    "delete_product",
    "delete_automation",
    "update_product",
    "update_automation",
  ])
    assert.equal(hint(name, "destructiveHint"), true, name);
});

test("generated/server.json is a valid MCP registry entry with a {base_url}/mcp streamable-http remote", async () => {
  const doc = JSON.parse(await readFile(path.join(REPO_ROOT, "generated/server.json"), "utf8"));
  const schema = JSON.parse(
    await readFile(path.join(REPO_ROOT, "test/fixtures/mcp-registry/server.schema.json"), "utf8"),
  );
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  assert.ok(ajv.validate(schema, structuredClone(doc)), ajv.errorsText(ajv.errors));
  assert.equal(doc.$schema, "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
  assert.equal(doc.remotes.length, 1);
  assert.equal(doc.remotes[0].type, "streamable-http");
  assert.equal(doc.remotes[0].url, "{base_url}/mcp");
  assert.equal(doc.remotes[0].variables.base_url.isRequired, true);
  const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8"));
  assert.deepEqual([doc.name, doc.version], [pkg.mcpName, pkg.version]);
  // the schema refuses what the registry refuses
  assert.equal(ajv.validate(schema, { ...doc, description: "x".repeat(101) }), false);
  assert.equal(ajv.validate(schema, { ...doc, name: "no-namespace" }), false);
});
