/**
 * The shape of tools.yaml (docs/tools-yaml.md) as a TypeBox schema, and the types codegen works with.
 * Structural checks live here; the semantic rules (bounded strings, idempotency keys, hints, scopes) are in
 * rules.ts. Both report every bad field with its path.
 */
import Type, { type Static } from "typebox";

/** Tool groups of DESIGN.md section 4, in the order the guide presents them. */
export const GROUPS = [
  "account",
  "products",
  "content",
  "captions",
  "carousels",
  "media",
  "social",
  "automations",
  "analytics",
] as const;

export type Group = (typeof GROUPS)[number];

/** A JSON Schema object as written in YAML; its keywords are checked by rules.ts. */
const JsonSchemaObject = Type.Record(Type.String(), Type.Unknown());

export const ToolSpecSchema = Type.Object(
  {
    name: Type.String({ pattern: "^[a-z][a-z0-9_]{0,63}$" }),
    title: Type.String({ minLength: 1, maxLength: 80 }),
    group: Type.Enum(GROUPS),
    description: Type.String({ minLength: 20, maxLength: 4000 }),
    scope: Type.String({ minLength: 1, maxLength: 64 }),
    access: Type.Enum(["read", "write"]),
    review: Type.Boolean(),
    queued: Type.Boolean(),
    budget: Type.Enum(["read", "write", "ai", "approval", "delete"]),
    credits: Type.String({ minLength: 1, maxLength: 500 }),
    plan: Type.Union([Type.Null(), Type.Enum(["creator", "growth", "pro"])]),
    annotations: Type.Object(
      {
        readOnlyHint: Type.Boolean(),
        destructiveHint: Type.Boolean(),
        idempotentHint: Type.Boolean(),
        openWorldHint: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    /** Why each hint has its value, one line each (emitted into catalog.json as `annotation_reasons`). */
    annotation_reasons: Type.Object(
      {
        readOnlyHint: Type.String({ minLength: 10, maxLength: 200 }),
        destructiveHint: Type.String({ minLength: 10, maxLength: 200 }),
        idempotentHint: Type.String({ minLength: 10, maxLength: 200 }),
        openWorldHint: Type.String({ minLength: 10, maxLength: 200 }),
      },
      { additionalProperties: false },
    ),
    input: JsonSchemaObject,
    output: Type.Optional(JsonSchemaObject),
    result: Type.Optional(JsonSchemaObject),
    example: JsonSchemaObject,
    /**
     * MCP `_meta` of the tool. Only `ui.resourceUri` (MCP Apps, `io.modelcontextprotocol/ui`): the `ui://` view
     * that shows the tool's results (src/mcp/views/catalog.ts; tool-rules.ts checks that it names a view).
     */
    _meta: Type.Optional(
      Type.Object(
        {
          ui: Type.Object(
            { resourceUri: Type.String({ pattern: "^ui://", maxLength: 200 }) },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ToolsFileSchema = Type.Object(
  {
    version: Type.Literal(1),
    /** Values written once and referenced with YAML aliases (`*read_reasons`); nothing reads this key itself. */
    anchors: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** Shared shapes referenced as `$ref: "#/definitions/<name>"` (codegen/definitions.ts). */
    definitions: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    tools: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 500 }),
  },
  { additionalProperties: false },
);

/** A JSON Schema (2020-12) object. */
export type JsonSchema = Record<string, unknown>;

/** One tool exactly as written in tools.yaml, after structural validation. */
export type ToolSpec = Static<typeof ToolSpecSchema> & {
  input: JsonSchema;
  output?: JsonSchema;
  result?: JsonSchema;
  example: Record<string, unknown>;
};

/** The whole tools.yaml, after validation. */
export interface ToolsFile {
  version: 1;
  tools: ToolSpec[];
}
