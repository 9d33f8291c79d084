/**
 * Portable nullable types (docs/tools-yaml.md "Definitions"): a JSON Schema type array such as `type:
 * [string, "null"]` is valid JSON Schema 2020-12, but single-type dialects (the OpenAPI 3.0 subset of Gemini
 * function declarations) reject it, and the MCP Inspector's schema portability check (`--strict`) flags each
 * one. Every schema codegen emits (catalog, registry, tools/list) writes it instead as `anyOf: [{type: X,
 * ...X's keywords}, {type: "null"}]`, which means the same: the value is null or an X that meets the
 * keywords. Annotations (`title`, `description`, `default`, `examples`, ...) stay on the outer schema; a
 * `null` in an `enum` moves to the null branch.
 */
import type { JsonSchema } from "./spec.ts";

type Schema = Record<string, unknown>;

/** Keywords that describe the whole value, kept outside the anyOf. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
]);
/** Keywords whose value is a map of subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is one subschema. */
const SCHEMA_ONE = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** `schema` with every subschema rewritten by `portableNullable`. */
function children(schema: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(k) && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, isObject(s) ? rewrite(s) : s]));
    else if (SCHEMA_ONE.has(k) && isObject(v)) out[k] = rewrite(v);
    else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map((s) => (isObject(s) ? rewrite(s) : s));
    else out[k] = v;
  }
  return out;
}

function rewrite(input: Schema): Schema {
  const schema = children(input);
  const type = schema.type;
  if (!Array.isArray(type)) return schema;
  const types = type.filter((t): t is string => typeof t === "string");
  if (types.length === 1) return { ...schema, type: types[0] };
  const annotations: Schema = {};
  const keywords: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "type") continue;
    (ANNOTATIONS.has(k) ? annotations : keywords)[k] = v;
  }
  const branch = (t: string): Schema => {
    if (t === "null") return { type: "null" };
    const b: Schema = { type: t, ...keywords };
    if (Array.isArray(b.enum)) b.enum = b.enum.filter((e) => e !== null);
    return b;
  };
  // The null branch last: `X or null`, as the type array said.
  const ordered = [...types.filter((t) => t !== "null"), ...types.filter((t) => t === "null")];
  return { ...annotations, anyOf: ordered.map(branch) };
}

/** `schema` with every type array written as an `anyOf` of single types (see the module comment). Pure. */
export function portableNullable(schema: JsonSchema): JsonSchema {
  return rewrite(schema as Schema) as JsonSchema;
}

/** The JSON pointers of every type array left in `schema` (none after `portableNullable`). */
export function typeArrays(schema: unknown, at = ""): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => typeArrays(s, `${at}/${i}`));
  if (!isObject(schema)) return [];
  const own = Array.isArray(schema.type) ? [at || "/"] : [];
  return [
    ...own,
    ...Object.entries(schema).flatMap(([k, v]) =>
      k === "enum" || k === "const" || k === "default" || k === "examples" ? [] : typeArrays(v, `${at}/${k}`),
    ),
  ];
}
