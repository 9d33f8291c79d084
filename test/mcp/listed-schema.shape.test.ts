/**
 * The listed output schema (src/mcp/listed-schema.ts, MCP "Output schema"): it compiles, it keeps the shape
 * of `data` (fields, types, required) and drops only bounds, every envelope the full schema accepts is
 * accepted by it, and it keeps tools/list small.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TOOLS } from "../../generated/registry.ts";
import { listedOutputSchema, shapeOf } from "../../src/mcp/listed-schema.ts";
import { validator } from "../helpers/validator.ts";

const REQUEST_ID = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";

test("shapeOf drops bounds and closed-object markers at every depth and keeps the rest", () => {
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
          properties: {
            id: { type: "string", format: "uuid", maxLength: 36 },
            n: { type: "integer", minimum: 0, maximum: 9 },
            kind: { type: "string", enum: ["a", "b"], maxLength: 8, pattern: "^[ab]$" },
          },
        },
      },
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
          properties: {
            id: { type: "string", format: "uuid" },
            n: { type: "integer" },
            kind: { type: "string", enum: ["a", "b"] },
          },
        },
      },
    },
  });
});

test("every tool's listed schema compiles and accepts what the full schema accepts", () => {
  for (const tool of TOOLS) {
    const listed = validator(listedOutputSchema(tool));
    const failed = {
      request_id: REQUEST_ID,
      status: "failed",
      error: { code: "not_found", message: "post not found", request_id: REQUEST_ID },
    };
    assert.deepEqual(tool.validateOutput(failed), [], tool.name);
    assert.deepEqual(listed(failed), [], tool.name);
    const started = tool.review
      ? {
          request_id: REQUEST_ID,
          status: "approval_required",
          operation_id: REQUEST_ID,
          approval_url: "https://x.test/a",
        }
      : undefined;
    if (started) {
      assert.deepEqual(tool.validateOutput(started), [], tool.name);
      assert.deepEqual(listed(started), [], tool.name);
    }
    // a status the tool's path never answers with is refused by the listed schema
    assert.notDeepEqual(listed({ request_id: REQUEST_ID, status: "running" }), [], tool.name);
  }
});

test("listing every tool with its listed schema is much smaller than with the full envelope", () => {
  const size = (pick: (t: (typeof TOOLS)[number]) => unknown) =>
    Buffer.byteLength(JSON.stringify(TOOLS.map((t) => ({ ...t, outputSchema: pick(t) }))));
  const full = size((t) => t.outputSchema);
  const listed = size(listedOutputSchema);
  assert.ok(listed < full * 0.75, `listed ${listed} bytes vs full ${full} bytes`);
});
