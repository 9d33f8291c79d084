/**
 * Portable nullable types (codegen/nullable.ts): `type: [X, "null"]` is emitted as
 * `anyOf: [{type: X, ...}, {type: "null"}]`. Single-type dialects (the OpenAPI subset of Gemini function
 * declarations) reject type arrays, and the MCP Inspector's schema portability check (`--strict`) warns on
 * each; the rule checked here is that check's: no emitted schema (catalog, registry, tools/list) holds a
 * type array, and the rewrite accepts exactly what the type array accepted.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { portableNullable, typeArrays } from "../../codegen/nullable.ts";
import { TOOLS } from "../../generated/registry.ts";
import { listedInputSchema, listedOutputSchema } from "../../src/mcp/listed-schema.ts";

const cases: Array<{ name: string; given: Record<string, unknown>; want: Record<string, unknown> }> = [
  {
    name: "a nullable string keeps its keywords in the string branch, its description outside",
    given: { type: ["string", "null"], maxLength: 5, format: "uuid", description: "an id" },
    want: {
      description: "an id",
      anyOf: [{ type: "string", maxLength: 5, format: "uuid" }, { type: "null" }],
    },
  },
  {
    name: "null first in the array still comes last",
    given: { type: ["null", "integer"], minimum: 0, default: null },
    want: { default: null, anyOf: [{ type: "integer", minimum: 0 }, { type: "null" }] },
  },
  {
    name: "an enum's null moves to the null branch",
    given: { type: ["string", "null"], enum: ["a", "b", null] },
    want: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
  },
  {
    name: "a one-element array becomes a plain type",
    given: { type: ["string"], minLength: 1 },
    want: { type: "string", minLength: 1 },
  },
  {
    name: "nested: properties, items, anyOf branches and additionalProperties",
    given: {
      type: "object",
      properties: {
        a: { type: ["number", "null"] },
        list: { type: "array", items: { type: ["string", "null"] } },
        either: { oneOf: [{ type: ["boolean", "null"] }, { type: "string" }] },
        map: { type: "object", additionalProperties: { type: ["integer", "null"] } },
      },
      required: ["a"],
    },
    want: {
      type: "object",
      properties: {
        a: { anyOf: [{ type: "number" }, { type: "null" }] },
        list: { type: "array", items: { anyOf: [{ type: "string" }, { type: "null" }] } },
        either: { oneOf: [{ anyOf: [{ type: "boolean" }, { type: "null" }] }, { type: "string" }] },
        map: { type: "object", additionalProperties: { anyOf: [{ type: "integer" }, { type: "null" }] } },
      },
      required: ["a"],
    },
  },
  {
    name: "values are data, never rewritten",
    given: { type: "object", default: { type: ["x", "null"] }, const: { type: ["y", "null"] } },
    want: { type: "object", default: { type: ["x", "null"] }, const: { type: ["y", "null"] } },
  },
];

for (const c of cases)
  test(`portableNullable: ${c.name}`, () => {
    assert.deepEqual(portableNullable(c.given), c.want);
  });

test("the rewrite accepts exactly the values the type array accepted", () => {
  const ajv = new Ajv2020({ strict: false });
  const given = { type: ["string", "null"], maxLength: 3, enum: ["ab", "abcd", null] };
  const before = ajv.compile(given);
  const after = ajv.compile(portableNullable(given));
  for (const v of ["ab", "abcd", null, "zz", 3, undefined, ""])
    assert.equal(after(v), before(v), JSON.stringify(v));
});

test("no schema codegen emits holds a type array: catalog, registry and tools/list (0 portability warnings)", async () => {
  const catalog = JSON.parse(
    await readFile(new URL("../../generated/catalog.json", import.meta.url), "utf8"),
  );
  assert.deepEqual(typeArrays(catalog), [], "catalog.json");
  for (const t of TOOLS) {
    assert.deepEqual(typeArrays(t.inputSchema), [], `${t.name} input`);
    assert.deepEqual(typeArrays(t.outputSchema), [], `${t.name} output`);
    assert.deepEqual(typeArrays(listedInputSchema(t)), [], `${t.name} tools/list inputSchema`);
    assert.deepEqual(typeArrays(listedOutputSchema(t)), [], `${t.name} tools/list outputSchema`);
  }
  // And nullable fields are still nullable: update_product's price accepts null and numbers.
  const update = TOOLS.find((t) => t.name === "update_product")!;
  const price = (update.inputSchema.properties as Record<string, unknown>).price;
  assert.deepEqual(price, {
    anyOf: [{ type: "number", minimum: 0, maximum: 1_000_000_000 }, { type: "null" }],
  });
});
