/**
 * The listed schemas (src/mcp/listed-schema.ts, MCP "Listing tools" and "Output schema"): they are valid JSON
 * Schema 2020-12 and compile, they keep the shape (fields, types, formats, enums, descriptions) and drop or
 * loosen only constraints, every envelope and every argument set the full schemas accept is accepted by them,
 * object variants are listed as one object, and tools/list stays under its size budget.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { REPO_ROOT } from "../../codegen/format.ts";
import { TOOLS, TOOLS_BY_NAME } from "../../generated/registry.ts";
import {
  listedInputSchema,
  listedOutputSchema,
  mergeVariants,
  shapeOf,
} from "../../src/mcp/listed-schema.ts";
import { validator } from "../helpers/validator.ts";

const REQUEST_ID = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
const PRODUCT_ID = "3f2b6c1a-7d4e-4a8b-9c0d-1e2f3a4b5c6d";
const catalog = JSON.parse(await readFile(path.join(REPO_ROOT, "generated/catalog.json"), "utf8")) as {
  tools: Array<{ name: string; example: Record<string, unknown> }>;
};
const meta = new Ajv2020({ strict: false, validateFormats: false });

test("shapeOf drops bounds, closed-object markers, types an enum gives and all-property required lists; keeps the rest", () => {
  const full = {
    type: "object",
    additionalProperties: false,
    required: ["items"],
    properties: {
      items: {
        type: "array",
        maxItems: 50,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["id"],
          properties: {
            id: { type: "string", format: "uuid", maxLength: 36 },
            n: { type: "integer", minimum: 0, maximum: 9, description: "A count." },
            kind: { type: "string", enum: ["a", "b"], maxLength: 8, pattern: "^[ab]$" },
          },
        },
      },
      every: {
        type: "object",
        required: ["x"],
        properties: { x: { type: ["string", "null"], maxLength: 9 } },
      },
      optional: { type: "object", properties: { y: { type: "boolean" } } },
    },
  };
  assert.deepEqual(shapeOf(full), {
    type: "object",
    required: ["items"],
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          required: ["id"],
          properties: {
            id: { type: "string", format: "uuid" },
            n: { type: "integer", description: "A count." },
            kind: { enum: ["a", "b"] },
          },
        },
      },
      every: { type: "object", properties: { x: { type: ["string", "null"] } } },
      optional: { type: "object", properties: { y: { type: "boolean" } }, required: [] },
    },
  });
});

test("mergeVariants lists object variants as one object: union of properties, consts as enum, common required", () => {
  const uuid = { type: "string", format: "uuid" };
  const variants = {
    description: "Which fields go together.",
    oneOf: [
      {
        type: "object",
        additionalProperties: false,
        description: "first",
        properties: { kind: { type: "string", const: "a" }, id: uuid, extra: { type: "boolean" } },
        required: ["kind", "id"],
      },
      {
        type: "object",
        additionalProperties: false,
        properties: { kind: { type: "string", const: "b" }, id: uuid, size: { type: "integer" } },
        required: ["kind", "id", "size"],
      },
      {
        type: "object",
        additionalProperties: false,
        properties: { id: uuid, size: { type: "string" } },
        required: ["id"],
      },
    ],
  };
  assert.deepEqual(mergeVariants(variants), {
    description: "Which fields go together.",
    type: "object",
    additionalProperties: false,
    properties: {
      kind: { type: "string", enum: ["a", "b"] },
      id: uuid,
      extra: { type: "boolean" },
      size: { anyOf: [{ type: "integer" }, { type: "string" }] },
    },
    required: ["id"],
  });
  // not object variants: left as they are
  const requiredAlternatives = { anyOf: [{ required: ["a"] }, { required: ["b"] }] };
  assert.equal(mergeVariants(requiredAlternatives), requiredAlternatives);
  const one = { oneOf: [{ type: "object", properties: {} }] };
  assert.equal(mergeVariants(one), one);
});

test("every tool's listed schemas are valid JSON Schema 2020-12 with an object root", () => {
  for (const tool of TOOLS) {
    for (const [which, schema] of [
      ["input", listedInputSchema(tool)],
      ["output", listedOutputSchema(tool)],
    ] as const) {
      assert.ok(meta.validateSchema(schema), `${tool.name} ${which}: ${meta.errorsText(meta.errors)}`);
      assert.equal(schema.type, "object", `${tool.name} ${which}`);
    }
  }
});

test("every tool's listed output schema accepts what the full schema accepts and refuses other states", () => {
  const next = { tool: "get_job_status", arguments: { operation_id: REQUEST_ID }, after_seconds: 2 };
  for (const tool of TOOLS) {
    const listed = validator(listedOutputSchema(tool));
    const failed = {
      request_id: REQUEST_ID,
      status: "failed",
      error: {
        code: "forbidden",
        message: "insufficient credits",
        request_id: REQUEST_ID,
        retry: "after_user_action",
        details: { action_url: "https://x.test/settings#billing" },
      },
    };
    assert.deepEqual(tool.validateOutput(failed), [], tool.name);
    assert.deepEqual(listed(failed), [], tool.name);
    if (tool.review) {
      // the first answer and every replay (service spec 3.1): pending, then the operation's state once
      // approved, or denied after a decline or expiry
      const answers = [
        {
          status: "approval_required",
          approval_url: "https://x.test/a",
          data: { summary: "Publish the post.", expires_at: "2026-11-28T10:30:00.000Z" },
          next,
        },
        ...["approved", "queued", "running", "succeeded", "failed", "outcome_unknown"].map((status) => ({
          status,
          data: {
            summary: "Publish the post.",
            decision: "approved",
            decided_at: "2026-11-28T10:05:00.000Z",
          },
          next,
        })),
        { status: "denied", data: { decision: "declined", decided_at: "2026-11-28T10:05:00.000Z" } },
        { status: "denied", data: { decision: "expired", decided_at: "2026-11-28T10:30:00.000Z" } },
      ];
      for (const a of answers) {
        const envelope = { request_id: REQUEST_ID, operation_id: REQUEST_ID, ...a };
        assert.deepEqual(tool.validateOutput(envelope), [], `${tool.name} ${a.status}`);
        assert.deepEqual(listed(envelope), [], `${tool.name} ${a.status} (listed)`);
      }
    } else {
      // a status the tool's path never answers with is refused by the listed schema
      assert.notDeepEqual(listed({ request_id: REQUEST_ID, status: "running" }), [], tool.name);
    }
    if (tool.queued)
      for (const status of ["queued", "dispatch_failed"]) {
        const envelope = { request_id: REQUEST_ID, status, operation_id: REQUEST_ID, next };
        assert.deepEqual(listed(envelope), [], `${tool.name} ${status} (listed)`);
      }
  }
});

test("a listed automation record accepts every configuration variant the full schema accepts", () => {
  const tool = TOOLS_BY_NAME.get("get_automation")!;
  const listed = validator(listedOutputSchema(tool));
  const record = (configuration: Record<string, unknown>) => ({
    request_id: REQUEST_ID,
    status: "succeeded",
    data: {
      automation_id: REQUEST_ID,
      kind: "type" in configuration ? "video" : "carousel",
      name: "Daily",
      status: "draft",
      configuration,
      cta_asset_id: null,
      daily_times: ["09:00"],
      time_zone: "UTC",
      created_at: "2026-11-24T09:00:00Z",
      updated_at: "2026-11-24T09:00:00Z",
      review_status: "not_enabled",
      review_reason: null,
    },
  });
  const configurations = [
    { type: "ugc-video", template_id: "ugc-video", product_id: PRODUCT_ID, hook: "Wait for it" },
    { type: "grid-video", template_id: "2x2-grid", product_id: PRODUCT_ID, caption_tone: "bold" },
    { type: "fade-video", template_id: "single-fade", product_id: PRODUCT_ID },
    {
      product_id: PRODUCT_ID,
      design_id: "bold-minimal",
      slide_count: 6,
      format: "portrait",
      use_cta_artwork: true,
    },
  ];
  for (const c of configurations) {
    assert.deepEqual(tool.validateOutput(record(c)), [], JSON.stringify(c));
    assert.deepEqual(listed(record(c)), [], JSON.stringify(c));
  }
  // the merged form still knows the fields and their values
  const wrong = { type: "slideshow", template_id: "2x2-grid", product_id: PRODUCT_ID };
  assert.notDeepEqual(listed(record(wrong)), []);
});

test("every tool's listed input schema accepts the tool's example and refuses an unknown argument", () => {
  for (const tool of TOOLS) {
    const listed = validator(listedInputSchema(tool));
    const example = catalog.tools.find((t) => t.name === tool.name)!.example;
    assert.deepEqual(tool.validateInput(example), [], `${tool.name}: example`);
    assert.deepEqual(listed(example), [], `${tool.name}: example (listed)`);
    assert.notDeepEqual(listed({ ...example, not_an_argument: 1 }), [], `${tool.name}: unknown argument`);
  }
  const create = validator(listedInputSchema(TOOLS_BY_NAME.get("create_automation")!));
  const carousel = {
    kind: "carousel",
    name: "Weekly carousel",
    configuration: { product_id: PRODUCT_ID, design_id: "bold-minimal", slide_count: 6 },
    idempotency_key: REQUEST_ID,
  };
  assert.deepEqual(create(carousel), []);
  // the conditions between kind, configuration and cta_asset_id are not listed (no root combinator or
  // if/then: clients and model providers refuse them at a tool's root); the full schema still enforces them
  assert.deepEqual(create({ ...carousel, kind: "video" }), []);
  const full = TOOLS_BY_NAME.get("create_automation")!;
  assert.notDeepEqual(full.validateInput({ ...carousel, kind: "video" }), []);
  for (const tool of TOOLS) {
    const root = listedInputSchema(tool);
    for (const key of ["allOf", "anyOf", "oneOf", "if", "then", "else", "not", "minProperties"])
      assert.equal(root[key], undefined, `${tool.name}: listed input root has ${key}`);
  }
});

test('tools/list with every tool stays within its budgets: 80 KB, and 36 KB of what a model reads (bench/README.md "tools/list payload size")', () => {
  const listing = {
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: listedInputSchema(t),
      outputSchema: listedOutputSchema(t),
      annotations: t.annotations,
    })),
  };
  const bytes = Buffer.byteLength(JSON.stringify(listing));
  assert.ok(bytes <= 80_000, `tools/list is ${bytes} bytes`);
  // what a model reads of it: each tool's name and description (text) and input schema (JSON), as
  // bench/tools-list-size.ts measures it
  const read = listing.tools.reduce(
    (n, t) =>
      n +
      Buffer.byteLength(t.name) +
      Buffer.byteLength(t.description) +
      Buffer.byteLength(JSON.stringify(t.inputSchema)),
    0,
  );
  assert.ok(read <= 36_000, `names, descriptions and input schemas are ${read} bytes`);
});
