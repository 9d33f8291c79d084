/**
 * The listed schemas are portable (DESIGN.md section 3; what the MCP Inspector CLI's `--strict` lint of
 * `tools/list` reports, `npm run inspector:lint` runs the real one): no `type` given as a list (clients that map
 * schemas to a single-type dialect, such as the OpenAPI subset of Gemini function declarations, refuse it), no
 * `$ref` outside the document, no subschema without any validation keyword (it accepts anything, like a bare
 * `true`), and no boolean schema. A nullable value is written `anyOf` of a single-type branch and `null`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TOOLS } from "../../generated/registry.ts";
import { listedInputSchema, listedOutputSchema } from "../../src/mcp/listed-schema.ts";

/** Keywords that constrain an instance (JSON Schema 2020-12 assertions and applicators). */
const CONSTRAINING = new Set([
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "format",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "items",
  "prefixItems",
  "contains",
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "$ref",
]);
/** Keywords whose value is a subschema, a list of them, or a map of them. */
const ONE = ["items", "not", "contains", "additionalProperties", "propertyNames", "if", "then", "else"];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs", "definitions"];

/** Every problem of `schema` with its path. */
function problems(schema: unknown, at: string, keyword?: string): string[] {
  if (typeof schema === "boolean") return keyword === "additionalProperties" ? [] : [`${at}: boolean schema`];
  if (typeof schema !== "object" || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const out: string[] = [];
  if (Array.isArray(node.type)) out.push(`${at}: type is a list ${JSON.stringify(node.type)}`);
  if (typeof node.$ref === "string" && !node.$ref.startsWith("#")) out.push(`${at}: remote $ref`);
  if (keyword !== "not" && !Object.keys(node).some((k) => CONSTRAINING.has(k)))
    out.push(`${at}: no validation keyword`);
  for (const k of ONE) if (k in node) out.push(...problems(node[k], `${at}.${k}`, k));
  for (const k of LIST)
    if (Array.isArray(node[k]))
      for (const [i, s] of (node[k] as unknown[]).entries()) out.push(...problems(s, `${at}.${k}[${i}]`, k));
  for (const k of MAP)
    if (typeof node[k] === "object" && node[k] !== null)
      for (const [name, s] of Object.entries(node[k] as object))
        out.push(...problems(s, `${at}.${k}.${name}`, k));
  return out;
}

test("every listed input and output schema is portable: no type lists, remote refs, untyped or boolean schemas", () => {
  const found = TOOLS.flatMap((t) => [
    ...problems(listedInputSchema(t), `${t.name} inputSchema`),
    ...problems(listedOutputSchema(t), `${t.name} outputSchema`),
  ]);
  assert.deepEqual(found, []);
});

test("the check finds what the Inspector's lint reports", () => {
  assert.deepEqual(problems({ type: ["string", "null"] }, "x"), ['x: type is a list ["string","null"]']);
  assert.deepEqual(problems({ description: "anything" }, "x"), ["x: no validation keyword"]);
  assert.deepEqual(problems({ properties: { a: true } }, "x"), ["x.properties.a: boolean schema"]);
  assert.deepEqual(problems({ $ref: "https://example.com/s.json" }, "x"), ["x: remote $ref"]);
  assert.deepEqual(problems({ anyOf: [{ type: "string" }, { type: "null" }] }, "x"), []);
});
