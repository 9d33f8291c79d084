/**
 * The `outputSchema` a tool is listed with (MCP server/tools "Output schema"; service spec 2.4, 5.9).
 *
 * The registry validates every result against the full envelope schema of tools.yaml (strict: closed
 * objects, string lengths, patterns, bounds). Clients only need the shape: which fields, their types,
 * formats, enums and which are required. The listed schema is that shape, and every result the registry
 * accepts also validates against it (it only drops constraints, never adds one):
 * - the envelope keeps `request_id`, `status` (the states the tool's path can answer with), `data`,
 *   `credits_charged`, `error` and, for review and queued tools, `operation_id` and `approval_url`;
 * - inside `data`, keywords that only bound values (maxLength, minLength, pattern, minimum, maximum,
 *   maxItems, minItems, uniqueItems, additionalProperties: false) are left out.
 * The full schemas stay in the public catalog (generated/catalog.json, `output_schema`).
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

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** `schema` without the keywords in BOUNDS and without `additionalProperties: false`, at every depth. */
export function shapeOf(schema: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (BOUNDS.has(k) || (k === "additionalProperties" && v === false)) continue;
    if (SCHEMA_MAPS.has(k) && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, isObject(s) ? shapeOf(s) : s]));
    else if (Array.isArray(v)) out[k] = v.map((x) => (isObject(x) ? shapeOf(x) : x));
    else if (isObject(v)) out[k] = shapeOf(v);
    else out[k] = v;
  }
  return out;
}

/** The statuses each path answers a tools/call with (service spec 3.1); failures are `failed`. */
function statuses(tool: Pick<RegisteredTool, "review" | "queued">): string[] {
  if (tool.review) return ["approval_required", "failed"];
  if (tool.queued) return ["queued", "dispatch_failed", "failed"];
  return ["succeeded", "failed"];
}

/** The listed output schema of `tool` (see the module comment). */
export function listedOutputSchema(tool: Pick<RegisteredTool, "review" | "queued" | "outputSchema">): Schema {
  const full = isObject(tool.outputSchema.properties) ? tool.outputSchema.properties : {};
  const data = isObject(full.data) ? shapeOf(full.data) : { type: "object" };
  const uuid = { type: "string", format: "uuid" };
  const later = tool.review || tool.queued;
  return {
    type: "object",
    required: ["request_id", "status"],
    properties: {
      request_id: uuid,
      status: { type: "string", enum: statuses(tool) },
      data,
      ...(later ? { operation_id: uuid, approval_url: { type: "string", format: "uri" } } : {}),
      credits_charged: { type: "integer" },
      error: {
        type: "object",
        required: ["code", "message", "request_id"],
        properties: {
          code: { type: "string" },
          message: { type: "string" },
          request_id: uuid,
          retry_after: { type: "integer" },
          details: {},
        },
      },
    },
  };
}
