/**
 * Rules for the JSON Schemas written in tools.yaml (docs/tools-yaml.md): only known 2020-12 keywords, every
 * object closed with `additionalProperties: false`, every string and array bounded, `required` naming
 * declared properties. A pure walk that returns every violation with its path.
 */
import { type Issue, isRecord, pathOf, type Segment } from "./issues.ts";

/** The JSON Schema 2020-12 keywords tools.yaml may use. `$ref` is not supported: schemas are inlined. */
const KEYWORDS = new Set([
  "type",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
]);

const TYPES = new Set(["object", "array", "string", "integer", "number", "boolean", "null"]);

/** Formats whose values are bounded by definition, so a string with them needs no `maxLength`. */
const BOUNDED_FORMATS = new Set(["uuid", "date-time", "date", "time", "duration"]);

/** True for a pattern anchored at both ends without unbounded repetition, e.g. `^[A-Z]{3}$`. */
export function isBoundedPattern(pattern: string): boolean {
  if (!pattern.startsWith("^") || !pattern.endsWith("$")) return false;
  const body = pattern.replace(/\\./g, "x");
  return !/[*+]|\{\d+,\}/.test(body);
}

function typesOf(node: Record<string, unknown>): string[] {
  const t = node.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  return [];
}

/**
 * Checks one schema and everything below it.
 * @param node the schema object; @param at its path in the document.
 * @returns every violation, in document order.
 */
export function checkSchema(node: unknown, at: readonly Segment[]): Issue[] {
  const issues: Issue[] = [];
  walk(node, at, issues);
  return issues;
}

function walk(node: unknown, at: readonly Segment[], issues: Issue[]): void {
  const add = (segments: readonly Segment[], message: string) =>
    issues.push({ path: pathOf(segments), message });
  if (!isRecord(node)) {
    add(at, "must be a JSON Schema object");
    return;
  }
  for (const key of Object.keys(node)) {
    if (!KEYWORDS.has(key)) add([...at, key], "unknown JSON Schema keyword (or not supported in tools.yaml)");
  }
  const types = typesOf(node);
  if (node.type !== undefined) {
    const raw = Array.isArray(node.type) ? node.type : [node.type];
    if (raw.length === 0 || raw.some((t) => typeof t !== "string" || !TYPES.has(t)))
      add([...at, "type"], `must be one of ${[...TYPES].join(", ")} (or a list of them)`);
  }
  checkObject(node, at, types.includes("object"), issues);
  if (types.includes("string")) {
    const bounded =
      typeof node.maxLength === "number" ||
      "enum" in node ||
      "const" in node ||
      (typeof node.format === "string" && BOUNDED_FORMATS.has(node.format)) ||
      (typeof node.pattern === "string" && isBoundedPattern(node.pattern));
    if (!bounded)
      add(at, "a string must have maxLength (or an enum, const, bounded format or anchored pattern)");
  }
  if (types.includes("array")) {
    if (typeof node.maxItems !== "number") add(at, "an array must have maxItems");
    if (node.items === undefined && node.prefixItems === undefined) add(at, "an array must declare items");
  }
  if (node.enum !== undefined && (!Array.isArray(node.enum) || node.enum.length === 0))
    add([...at, "enum"], "must be a non-empty list");
  if (node.pattern !== undefined) {
    try {
      new RegExp(String(node.pattern), "u");
    } catch {
      add([...at, "pattern"], "is not a valid regular expression");
    }
  }
  if (node.items !== undefined) walk(node.items, [...at, "items"], issues);
  for (const key of ["prefixItems", "oneOf", "anyOf", "allOf"] as const) {
    const list = node[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) add([...at, key], "must be a non-empty list of schemas");
    else
      list.forEach((s, i) => {
        walk(s, [...at, key, i], issues);
      });
  }
  for (const key of ["not", "if", "then", "else"] as const) {
    if (node[key] !== undefined) walk(node[key], [...at, key], issues);
  }
}

/**
 * Object keywords. A schema with `type: object` must be closed (or, where another schema declares its shape,
 * explicitly open: `additionalProperties: true` with a `description` that says where, such as
 * get_job_status's `result`; or shaped only by `oneOf`/`anyOf` variants, each closed) and may only require
 * declared properties;
 * a fragment without a type (inside allOf/anyOf/oneOf/if/then/else, e.g. `{required: [x]}`) constrains the
 * same instance and is only walked.
 */
function checkObject(
  node: Record<string, unknown>,
  at: readonly Segment[],
  typed: boolean,
  issues: Issue[],
): void {
  const add = (segments: readonly Segment[], message: string) =>
    issues.push({ path: pathOf(segments), message });
  const documentedOpen = node.additionalProperties === true && typeof node.description === "string";
  // An object whose only shape is its variants (`oneOf`/`anyOf` of closed objects, walked below) is closed
  // by them: its own additionalProperties would refuse every field.
  const byVariants =
    node.properties === undefined && (Array.isArray(node.oneOf) || Array.isArray(node.anyOf));
  if (typed && node.additionalProperties !== false && !documentedOpen && !byVariants)
    add(
      [...at, "additionalProperties"],
      "must be false (closed objects), or true with a description saying where the shape is declared",
    );
  const props = node.properties;
  if (props !== undefined && !isRecord(props)) add([...at, "properties"], "must be a map of schemas");
  const declared = isRecord(props) ? props : {};
  for (const [name, schema] of Object.entries(declared)) walk(schema, [...at, "properties", name], issues);
  const required = node.required;
  if (required === undefined || !typed) return;
  if (!Array.isArray(required)) {
    add([...at, "required"], "must be a list of property names");
    return;
  }
  required.forEach((r, i) => {
    if (typeof r !== "string" || !Object.hasOwn(declared, r))
      add([...at, "required", i], `names ${JSON.stringify(r)}, which is not in properties`);
  });
}
