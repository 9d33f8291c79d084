/**
 * The `inputSchema` and `outputSchema` a tool is listed with (MCP server/tools "Listing tools", "Output
 * schema"; service spec 2.4, 5.9; the listing's size: bench/README.md "tools/list payload size").
 *
 * The registry validates every call and every result against the full schemas of tools.yaml (closed objects,
 * string lengths, patterns, bounds, each branch of a `oneOf`). tools/list is read by every client on every
 * connection, so it carries a compact form instead, which only drops or loosens constraints: every value the
 * full schema accepts validates against it.
 * - Object variants (a `oneOf`/`anyOf` whose branches are all object schemas, such as an automation's
 *   `configuration`) are listed as one object with every branch's properties (mergeVariants); the schema's
 *   own `description` says which fields go together.
 * - Input: the validated schema with object variants merged, without a `maxLength` that `enum`, `const` or a
 *   uuid/date-time `format` already bounds, without an empty `required`, and without the root's combinators
 *   and cross-field rules (`allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`, `not`, `minProperties`), which
 *   clients and model providers often refuse at a tool's root; the server still enforces them, with the same
 *   messages, and the tool's description says them in words.
 * - Output: the envelope fields the tool's path answers with: `request_id`, `status` (every state the path
 *   or a replay of the same call can answer with: a review request replayed after the user's decision answers
 *   the operation's state, `denied` after a decline or expiry), `data` as its shape (shapeOf; for review tools
 *   the request's summary, expiry and decision), `operation_id` (review and queued tools), `approval_url`
 *   (review tools), `credits_charged` (tools on the `ai` budget, the only ones that charge at the call), `next`
 *   and `error` as objects (their fields, the same for every tool, are in the guide and the catalog). The
 *   listed `data` shape carries no descriptions (the catalog has them): what a model reads is the tool's
 *   description and input schema, and the listing stays within its size budget (bench/tools-list-size.ts).
 * Listed objects are open: a field they leave out is still allowed. The full schemas are in the public catalog
 * (generated/catalog.json, `input_schema` and `output_schema`).
 */
import type { RegisteredTool } from "../tool-contract.ts";

type Schema = Record<string, unknown>;

/** Keywords that bound a value without changing its shape. */
const BOUNDS = new Set([
  "maxLength",
  "minLength",
  "pattern",
  "minimum",
  "maximum",
  "maxItems",
  "minItems",
  "uniqueItems",
]);

/** Keywords whose value is a map of subschemas. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "patternProperties"]);

/** Keywords whose value is data (or names), never a subschema. */
const VALUES = new Set(["enum", "const", "default", "examples", "required", "type"]);

/** Formats that already bound a string's length. */
const SIZED_FORMATS = new Set(["uuid", "date-time"]);

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** `schema` with `node` applied to it and to every subschema below it (depth first from the top). */
function mapSchema(schema: Schema, node: (s: Schema) => Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(node(schema))) {
    if (VALUES.has(k)) out[k] = v;
    else if (SCHEMA_MAPS.has(k) && isObject(v))
      out[k] = Object.fromEntries(
        Object.entries(v).map(([p, s]) => [p, isObject(s) ? mapSchema(s, node) : s]),
      );
    else if (Array.isArray(v)) out[k] = v.map((x) => (isObject(x) ? mapSchema(x, node) : x));
    else if (isObject(v)) out[k] = mapSchema(v, node);
    else out[k] = v;
  }
  return out;
}

/** The branches of `variants` when there are at least two and each is an object schema with properties. */
function objectBranches(variants: unknown): Schema[] | undefined {
  if (!Array.isArray(variants) || variants.length < 2) return undefined;
  const objects = variants.every((b) => isObject(b) && b.type === "object" && isObject(b.properties));
  return objects ? (variants as Schema[]) : undefined;
}

/** One schema accepting what each of `schemas` accepts: the common one, their consts as an enum, or anyOf. */
function unionOf(schemas: Schema[]): Schema {
  const distinct = [...new Map(schemas.map((s) => [JSON.stringify(s), s])).values()];
  if (distinct.length === 1) return distinct[0]!;
  const rest = ({ const: _c, description: _d, ...others }: Schema) => others;
  const sameButConst =
    distinct.every((s) => "const" in s) && new Set(distinct.map((s) => JSON.stringify(rest(s)))).size === 1;
  if (sameButConst) return { ...rest(distinct[0]!), enum: [...new Set(distinct.map((s) => s.const))] };
  return { anyOf: distinct };
}

/**
 * `schema` with its object variants (`oneOf` or `anyOf` of two or more object schemas) merged into one object
 * schema: the union of the branches' properties (see unionOf), `required` = what every branch requires,
 * `additionalProperties: false` when every branch had it, and the schema's other keywords (its
 * `description`); the branches' own descriptions are left out. Any other schema is returned as it is.
 */
export function mergeVariants(schema: Schema): Schema {
  for (const key of ["oneOf", "anyOf"]) {
    const branches = objectBranches(schema[key]);
    if (!branches) continue;
    const props = (b: Schema) => b.properties as Schema;
    const names = [...new Set(branches.flatMap((b) => Object.keys(props(b))))];
    const properties = Object.fromEntries(
      names.map((n) => {
        const defined = branches.filter((b) => n in props(b)).map((b) => props(b)[n]);
        return [n, defined.every(isObject) ? unionOf(defined) : {}];
      }),
    );
    const required = names.filter((n) =>
      branches.every((b) => Array.isArray(b.required) && b.required.includes(n)),
    );
    const closed = branches.every((b) => b.additionalProperties === false);
    const { [key]: _variants, ...others } = schema;
    return {
      ...others,
      type: "object",
      ...(closed ? { additionalProperties: false } : {}),
      properties,
      ...(required.length > 0 ? { required } : {}),
    };
  }
  return schema;
}

/** True when `required` names every property of `node` (the tools.yaml convention: nullable, always present). */
function requiresAll(node: Schema, required: unknown): boolean {
  return (
    Array.isArray(required) &&
    isObject(node.properties) &&
    Object.keys(node.properties).every((p) => required.includes(p))
  );
}

/**
 * `schema` reduced to its shape, at every depth: variants merged (mergeVariants), without the keywords in
 * BOUNDS, `additionalProperties: false`, a `type` beside `enum` or `const` (the values say it), and a
 * `required` that names every property. So an object without `required` has all its fields (what the server
 * instructions tell clients); one whose fields may be absent keeps its `required` (`[]` when it had none).
 */
export function shapeOf(schema: Schema): Schema {
  return mapSchema(schema, (node) => {
    const merged = mergeVariants(node);
    const valued = "enum" in merged || "const" in merged;
    const open = isObject(merged.properties) && Object.keys(merged.properties).length > 0;
    const shape = Object.fromEntries(
      Object.entries(merged).filter(
        ([k, v]) =>
          !BOUNDS.has(k) &&
          !(k === "additionalProperties" && v === false) &&
          !(k === "type" && valued) &&
          !(k === "required" && requiresAll(merged, v)),
      ),
    );
    return open && !("required" in merged) ? { ...shape, required: [] } : shape;
  });
}

/** Root keywords of an input schema that the listing leaves to the server (see the module comment). */
const ROOT_RULES = new Set(["allOf", "anyOf", "oneOf", "if", "then", "else", "not", "minProperties"]);

/**
 * The listed input schema of `tool` (see the module comment): variants merged, implied maxLength dropped,
 * root combinators and cross-field rules left to the server.
 */
export function listedInputSchema(tool: Pick<RegisteredTool, "inputSchema">): Schema {
  const root = Object.fromEntries(Object.entries(tool.inputSchema).filter(([k]) => !ROOT_RULES.has(k)));
  return mapSchema(root, (node) => {
    const merged = mergeVariants(node);
    const sized = "enum" in merged || "const" in merged || SIZED_FORMATS.has(merged.format as string);
    return Object.fromEntries(
      Object.entries(merged).filter(
        ([k, v]) =>
          !(k === "maxLength" && sized) && !(k === "required" && Array.isArray(v) && v.length === 0),
      ),
    );
  });
}

/** Every operation state (service spec 3.1), in the spec's order. */
const ALL_STATES = [
  "approval_required",
  "approved",
  "queued",
  "running",
  "succeeded",
  "failed",
  "dispatch_failed",
  "denied",
  "outcome_unknown",
];

/**
 * The statuses a tools/call of each path answers with, first call or replay (service spec 3.1); failures are
 * `failed`. A review request's replay answers its operation's current state; a deferrable inline tool
 * (create_product) answers `succeeded`, or `queued` when it handed its work to the worker.
 */
function statuses(tool: Pick<RegisteredTool, "review" | "queued" | "deferrable">): string[] {
  if (tool.review) return ALL_STATES;
  if (tool.queued) return ["queued", "dispatch_failed", "failed"];
  if (tool.deferrable) return ["succeeded", "queued", "dispatch_failed", "failed"];
  return ["succeeded", "failed"];
}

/** String formats the server's answers always follow: listing them in an output says nothing a client acts on. */
const ANSWER_FORMATS = new Set(["uuid", "date-time", "uri"]);

/**
 * `schema` as the shape of an answer, not its documentation, at any depth: without `description` keywords,
 * without the formats of ANSWER_FORMATS, and without a `type` that `properties` (object) or `items` (array)
 * already implies (a `description`, `format` or `type` property of an object stays).
 */
function answerShape(schema: Schema): Schema {
  return mapSchema(schema, (node) => {
    const { description: _d, ...rest } = node;
    if (typeof rest.format === "string" && ANSWER_FORMATS.has(rest.format)) delete rest.format;
    if ((rest.type === "object" && isObject(rest.properties)) || (rest.type === "array" && rest.items))
      delete rest.type;
    return rest;
  });
}

/** The listed output schema of `tool` (see the module comment). */
export function listedOutputSchema(
  tool: Pick<RegisteredTool, "review" | "queued" | "deferrable" | "budget" | "outputSchema">,
): Schema {
  const full = isObject(tool.outputSchema.properties) ? tool.outputSchema.properties : {};
  const data = isObject(full.data) ? { data: answerShape(shapeOf(full.data)) } : {};
  const uuid = { type: "string" };
  const later = tool.review || tool.queued || tool.deferrable;
  return {
    type: "object",
    properties: {
      request_id: uuid,
      status: { enum: statuses(tool) },
      ...data,
      ...(later ? { operation_id: uuid } : {}),
      ...(tool.review ? { approval_url: { type: "string" } } : {}),
      ...(tool.budget === "ai" ? { credits_charged: { type: "integer" } } : {}),
      next: { type: "object" },
      error: { type: "object" },
    },
  };
}
