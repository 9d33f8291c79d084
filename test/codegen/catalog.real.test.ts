/**
 * The real catalog (tools.yaml -> generated/): exactly the tools of tools.yaml with their flags (so adding a
 * tool needs no change here), the DESIGN.md section 4 rules for every tool, every schema compiled and closed, every mutation keyed, the registries of scopes and error codes
 * published in full, and generated/ up to date with tools.yaml.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../../codegen/format.ts";
import { loadTools } from "../../codegen/load.ts";
import { checkOutputs, emitGenerated, loadContext } from "../../codegen/pipeline.ts";
import { RESULT_VALIDATORS, TOOLS, TOOLS_BY_NAME } from "../../generated/registry.ts";
import { errorCodes } from "../../src/errors.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";

/** The tools as written in tools.yaml (definitions expanded): the source the catalog must reflect. */
const SOURCE = loadTools(await readFile(path.join(REPO_ROOT, "tools.yaml"), "utf8")).tools;

interface CatalogTool {
  name: string;
  group: string;
  scope: string;
  access: string;
  browser_approval: boolean;
  queued_handler: boolean;
  budget: string;
  plan: string | null;
  annotations: Record<string, boolean | string>;
  annotation_reasons: Record<string, string>;
  title: string;
  input_schema: Record<string, any>;
  output_schema: Record<string, any>;
  result_schema?: Record<string, any>;
  example: Record<string, unknown>;
}

const catalog = JSON.parse(await readFile(path.join(REPO_ROOT, "generated/catalog.json"), "utf8")) as {
  tools: CatalogTool[];
  scopes: Array<{ name: string }>;
  error_codes: Array<{ code: string; description: string }>;
  protocol_revisions: string[];
};
const guide = await readFile(path.join(REPO_ROOT, "generated/guide.md"), "utf8");

const REQUEST_ID = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";

test("generated/ is up to date with tools.yaml (what `npm run codegen -- --check` checks)", async () => {
  const ctx = await loadContext(path.join(REPO_ROOT, "tools.yaml"));
  assert.deepEqual(await checkOutputs(REPO_ROOT, await emitGenerated(ctx)), []);
});

test("the catalog holds exactly the tools of tools.yaml, sorted by name, with their flags", () => {
  const names = catalog.tools.map((t) => t.name);
  assert.deepEqual(names, SOURCE.map((t) => t.name).sort());
  for (const tool of catalog.tools) {
    const src = SOURCE.find((t) => t.name === tool.name)!;
    const got = [
      tool.group,
      tool.scope,
      tool.access,
      tool.browser_approval,
      tool.queued_handler,
      tool.budget,
    ];
    assert.deepEqual(got, [src.group, src.scope, src.access, src.review, src.queued, src.budget], tool.name);
    assert.equal(tool.plan, src.plan, `${tool.name}.plan`);
    assert.deepEqual(tool.annotations, { title: src.title, ...src.annotations }, `${tool.name}.annotations`);
    assert.equal(tool.annotations.title, tool.title, `${tool.name}: annotations.title is the tool's title`);
    assert.deepEqual(
      Object.keys(tool.annotation_reasons).sort(),
      ["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"],
      `${tool.name}: one reason per hint`,
    );
    // the rules of DESIGN.md section 4 that hold for every tool (a read tool may spend the ai budget:
    // generate_captions saves nothing)
    if (tool.budget === "read") assert.equal(tool.access, "read", `${tool.name}.access`);
    assert.equal(tool.annotations.readOnlyHint, tool.access === "read", `${tool.name}.readOnlyHint`);
    if (tool.budget === "delete")
      assert.equal(tool.annotations.destructiveHint, true, `${tool.name}.destructiveHint`);
    if (tool.group === "analytics") assert.equal(tool.plan, "pro", `${tool.name}.plan`);
    if (tool.browser_approval || tool.queued_handler)
      assert.ok(tool.result_schema, `${tool.name}.result_schema`);
  }
});

test("the registry matches the catalog: same tools, same order, same flags", () => {
  assert.deepEqual(
    TOOLS.map((t) => t.name),
    catalog.tools.map((t) => t.name),
  );
  for (const c of catalog.tools) {
    const r = TOOLS_BY_NAME.get(c.name);
    assert.ok(r, c.name);
    assert.deepEqual(
      [r.scope, r.access, r.review, r.queued, r.budget, r.plan],
      [c.scope, c.access, c.browser_approval, c.queued_handler, c.budget, c.plan],
    );
    assert.deepEqual(r.inputSchema, c.input_schema);
    assert.deepEqual(r.outputSchema, c.output_schema);
    assert.equal(typeof r.handler.execute, "function", `${c.name}: handler.execute`);
    if (r.queued) assert.equal(typeof r.handler.accept, "function", `${c.name}: handler.accept`);
    if (r.review) assert.equal(typeof r.handler.describe, "function", `${c.name}: handler.describe`);
    assert.equal(
      RESULT_VALIDATORS.has(c.name),
      r.review || r.queued || r.deferrable,
      `${c.name}: result validator`,
    );
  }
});

/** Every `type: object` node of a schema, with its JSON pointer. */
function objectNodes(schema: unknown, at = ""): Array<[string, Record<string, unknown>]> {
  if (typeof schema !== "object" || schema === null) return [];
  if (Array.isArray(schema)) return schema.flatMap((s, i) => objectNodes(s, `${at}/${i}`));
  const node = schema as Record<string, unknown>;
  const here: Array<[string, Record<string, unknown>]> =
    node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) ? [[at, node]] : [];
  return [...here, ...Object.entries(node).flatMap(([k, v]) => objectNodes(v, `${at}/${k}`))];
}

test("every schema is closed: each object node has additionalProperties false", () => {
  for (const t of catalog.tools) {
    for (const [which, schema] of [
      ["input", t.input_schema],
      ["output", t.output_schema],
      ["result", t.result_schema],
    ] as const) {
      for (const [at, node] of objectNodes(schema)) {
        if (at.endsWith("/details") || at.includes("/error/properties/details/")) continue;
        // explicitly open, saying where the shape is declared: get_job_status's result, next's arguments
        if (node.additionalProperties === true && typeof node.description === "string") continue;
        if (at.endsWith("/next/properties/arguments")) continue;
        // shaped only by its variants, each closed (create_product's data: the product, or the page being read)
        if (node.properties === undefined && (Array.isArray(node.oneOf) || Array.isArray(node.anyOf)))
          continue;
        assert.equal(node.additionalProperties, false, `${t.name} ${which} ${at || "/"}`);
      }
    }
  }
});

test("every input schema compiles, accepts the example and rejects an unknown argument", () => {
  for (const tool of TOOLS) {
    const example = catalog.tools.find((t) => t.name === tool.name)!.example;
    assert.deepEqual(tool.validateInput(example), [], `${tool.name}: example`);
    const issues = tool.validateInput({ ...example, not_an_argument: 1 });
    assert.ok(
      issues.some((i) => i.instancePath === "/not_an_argument" || i.keyword === "additionalProperties"),
      `${tool.name}: unknown argument accepted`,
    );
    assert.notDeepEqual(tool.validateInput("not an object"), [], tool.name);
  }
});

test("every output schema compiles, accepts a failure envelope and rejects an unknown field", () => {
  const failure = {
    request_id: REQUEST_ID,
    status: "failed",
    error: { code: "internal_error", message: "boom", request_id: REQUEST_ID, retry: "same_key" },
  };
  for (const tool of TOOLS) {
    assert.deepEqual(tool.validateOutput(failure), [], `${tool.name}: failure envelope`);
    assert.notDeepEqual(tool.validateOutput({ ...failure, extra: true }), [], `${tool.name}: extra field`);
    assert.notDeepEqual(tool.validateOutput({ status: "failed" }), [], `${tool.name}: request_id required`);
    const badCode = { ...failure, error: { ...failure.error, code: "teapot" } };
    assert.notDeepEqual(tool.validateOutput(badCode), [], `${tool.name}: unknown error code`);
    if (tool.review) {
      const pending = {
        request_id: REQUEST_ID,
        status: "approval_required",
        operation_id: REQUEST_ID,
        approval_url: `http://127.0.0.1/settings/integrations/mcp/requests/${REQUEST_ID}`,
      };
      assert.deepEqual(tool.validateOutput(pending), [], `${tool.name}: approval_required envelope`);
    }
  }
});

test("every mutation requires a uuid idempotency_key; reads take none", () => {
  for (const tool of TOOLS) {
    const input = tool.inputSchema as { properties: Record<string, any>; required?: string[] };
    if (tool.access === "write") {
      assert.deepEqual(
        [input.properties.idempotency_key?.type, input.properties.idempotency_key?.format],
        ["string", "uuid"],
        tool.name,
      );
      assert.ok(input.required?.includes("idempotency_key"), `${tool.name}: idempotency_key not required`);
      const example = { ...catalog.tools.find((t) => t.name === tool.name)!.example };
      const withBadKey = { ...example, idempotency_key: "not-a-uuid" };
      assert.ok(
        tool.validateInput(withBadKey).some((i) => i.instancePath === "/idempotency_key"),
        tool.name,
      );
      delete example.idempotency_key;
      assert.ok(
        tool.validateInput(example).some((i) => i.keyword === "required"),
        `${tool.name}: accepted without idempotency_key`,
      );
    } else if (input.properties.idempotency_key !== undefined) {
      // a read tool that saves nothing accepts an older client's key and says it is not needed
      assert.ok(!input.required?.includes("idempotency_key"), `${tool.name}: key required on a read`);
      assert.match(input.properties.idempotency_key.description, /Not needed/, tool.name);
    }
  }
});

test("the catalog and the guide list exactly the registered error codes and scopes", () => {
  assert.deepEqual(
    catalog.error_codes.map((e) => e.code),
    errorCodes,
  );
  assert.deepEqual(
    catalog.scopes.map((s) => s.name),
    ALL_SCOPES,
  );
  const errorsSection = guide.split(/^## /m).find((s) => s.startsWith("Errors\n")) ?? "";
  const guideCodes = [...errorsSection.matchAll(/^\| `([a-z_]+)` \| /gm)].map((m) => m[1]);
  assert.deepEqual(guideCodes, errorCodes);
  for (const scope of ALL_SCOPES) assert.ok(guide.includes(`| \`${scope}\` |`), `guide lacks scope ${scope}`);
  assert.deepEqual(catalog.protocol_revisions, ["2026-07-28", "2025-11-25", "2025-06-18"]);
  for (const t of catalog.tools) assert.ok(guide.includes(`### \`${t.name}\``), `guide lacks ${t.name}`);
});
