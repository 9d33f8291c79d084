/**
 * Emits generated/tool-types.ts: TypeScript types of every tool's input, output (`data`) and result, made
 * by openapi-typescript from an in-memory OpenAPI 3.1 document whose components.schemas are
 * `<name>_input`, `<name>_output` and `<name>_result`; then the `ToolInputs`, `ToolOutputs` and
 * `ToolResults` maps keyed by tool name, and `ToolHandlers`: the handler type each tool must implement
 * (generated/registry.ts assigns every handler to its entry, so a handler whose input, output or result
 * does not match tools.yaml is a compile error).
 */
import openapiTS, { astToString, type OpenAPI3, type SchemaObject } from "openapi-typescript";
import type { CodegenContext, ResolvedTool } from "../context.ts";

/** The OpenAPI document the types are generated from (exported for tests). */
export function openApiDocument(ctx: CodegenContext): OpenAPI3 {
  const schemas: Record<string, SchemaObject> = {};
  for (const tool of ctx.tools) {
    schemas[`${tool.name}_input`] = structuredClone(tool.input) as SchemaObject;
    schemas[`${tool.name}_output`] = structuredClone(tool.data) as SchemaObject;
    if (tool.result) schemas[`${tool.name}_result`] = structuredClone(tool.result) as SchemaObject;
  }
  return {
    openapi: "3.1.0",
    info: { title: "Social MCP tools", version: "1" },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    components: { schemas },
  };
}

function map(name: string, doc: string, entries: Array<[string, string]>): string {
  const body = entries.map(([tool, key]) => `  ${tool}: components["schemas"]["${key}"];`).join("\n");
  return `/** ${doc} */\nexport interface ${name} {\n${body}\n}\n`;
}

/** The handler type of `tool` (src/tool-contract.ts): inline, review or queued. */
export function handlerType(tool: ResolvedTool): string {
  const [i, o, r] = ["ToolInputs", "ToolOutputs", "ToolResults"].map((m) => `${m}["${tool.name}"]`);
  if (tool.queued) return `QueuedToolHandler<${i}, ${r}, ${o}>`;
  if (tool.review) return `ReviewToolHandler<${i}, ${r}>`;
  if (tool.result) return `DeferrableToolHandler<${i}, ${o}, ${r}>`;
  return `ToolHandler<${i}, ${o}>`;
}

function handlersMap(ctx: CodegenContext): string {
  const body = ctx.tools.map((t) => `  ${t.name}: ${handlerType(t)};`).join("\n");
  return `/** The handler type of each tool: what \`src/tools/<group>/<name>.ts\` exports as \`handler\`. */\nexport interface ToolHandlers {\n${body}\n}\n`;
}

/**
 * @returns the unformatted source of generated/tool-types.ts.
 * `defaultNonNullable: false`: a property with a `default` stays optional (the runtime does not fill defaults).
 */
export async function emitToolTypes(ctx: CodegenContext): Promise<string> {
  const ast = await openapiTS(openApiDocument(ctx), {
    alphabetize: false,
    defaultNonNullable: false,
    silent: true,
  });
  const header = `/**\n * ${ctx.provenance}\n * Types of tool inputs, outputs and results (openapi-typescript over the tools.yaml schemas).\n */\n\n`;
  const used = [...new Set(ctx.tools.map((t) => handlerType(t).split("<")[0]))].sort();
  const contract = `import type { ${used.join(", ")} } from "../src/tool-contract.ts";\n\n`;
  return [
    header + contract + astToString(ast),
    map(
      "ToolInputs",
      "The `arguments` of each tool.",
      ctx.tools.map((t) => [t.name, `${t.name}_input`]),
    ),
    map(
      "ToolOutputs",
      "The envelope's `data` of each tool (for queued tools: what `accept` returns).",
      ctx.tools.map((t) => [t.name, `${t.name}_output`]),
    ),
    map(
      "ToolResults",
      "The worker's result of each review, queued or deferrable tool (`data.result` of get_job_status).",
      ctx.tools.filter((t) => t.result).map((t) => [t.name, `${t.name}_result`]),
    ),
    handlersMap(ctx),
  ].join("\n");
}
