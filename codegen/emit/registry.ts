/**
 * Emits generated/registry.ts with ts-morph (in-memory file system): per tool its ToolMeta
 * (src/tool-contract.ts), validators compiled once at module load with TypeBox `Compile`, and the handler
 * imported from `src/tools/<group>/<name>.ts`. Exports TOOLS (sorted by name), TOOLS_BY_NAME,
 * RESULT_SCHEMAS and RESULT_VALIDATORS (worker results of review and queued tools).
 */
import { Project, VariableDeclarationKind } from "ts-morph";
import type { CodegenContext, ResolvedTool } from "../context.ts";

const HANDLER_SUFFIX = "_handler";

/** TS expression for a JSON value (formatting is left to the formatter). */
const literal = (value: unknown): string => JSON.stringify(value);

function metaLiteral(tool: ResolvedTool): string {
  const meta = {
    name: tool.name,
    title: tool.title,
    group: tool.group,
    description: tool.description,
    scope: tool.scope,
    access: tool.access,
    review: tool.review,
    queued: tool.queued,
    deferrable: !tool.review && !tool.queued && tool.result !== undefined,
    budget: tool.budget,
    credits: tool.credits,
    plan: tool.plan,
    annotations: tool.annotations,
    inputSchema: tool.input,
    outputSchema: tool.envelope,
    ...(tool._meta ? { _meta: tool._meta } : {}),
  };
  return literal(meta);
}

/** @returns the unformatted source of generated/registry.ts. */
export function emitRegistry(ctx: CodegenContext): string {
  const project = new Project({ useInMemoryFileSystem: true });
  const file = project.createSourceFile("registry.ts", "", { overwrite: true });
  file.insertText(
    0,
    `/**\n * ${ctx.provenance}\n * The tool registry: metadata, compiled validators and handler bindings (docs/tools-yaml.md).\n */\n`,
  );
  file.addImportDeclaration({ moduleSpecifier: "typebox/compile", namedImports: ["Compile"] });
  file.addImportDeclaration({
    moduleSpecifier: "../src/tool-contract.ts",
    isTypeOnly: true,
    namedImports: ["BoundToolHandler", "RegisteredTool", "SchemaIssue", "ToolMeta", "Validator"],
  });
  file.addImportDeclaration({
    moduleSpecifier: "./tool-types.ts",
    isTypeOnly: true,
    namedImports: ["ToolHandlers"],
  });
  for (const tool of ctx.tools) {
    file.addImportDeclaration({
      moduleSpecifier: `../${tool.handlerPath}`,
      namedImports: [{ name: "handler", alias: `${tool.name}${HANDLER_SUFFIX}` }],
    });
  }
  file.addFunction({
    name: "validator",
    docs: [
      "Compiles `schema` once; the validator returns [] for a valid value, else the issues (TypeBox shape).",
    ],
    parameters: [{ name: "schema", type: "Record<string, unknown>" }],
    returnType: "Validator",
    statements: [
      "const compiled = Compile(schema);",
      "return (value) => compiled.Check(value) ? [] : compiled.Errors(value).map((e): SchemaIssue => ({ keyword: e.keyword, instancePath: e.instancePath, schemaPath: e.schemaPath, params: { ...e.params }, message: e.message }));",
    ],
  });
  file.addFunction({
    name: "register",
    parameters: [
      { name: "meta", type: "ToolMeta" },
      { name: "handler", type: "BoundToolHandler" },
    ],
    returnType: "RegisteredTool",
    statements: [
      "return { ...meta, validateInput: validator(meta.inputSchema), validateOutput: validator(meta.outputSchema), handler };",
    ],
  });
  file.addVariableStatement({
    declarationKind: VariableDeclarationKind.Const,
    docs: [
      "Each tool's handler, checked against the type tools.yaml gives it (a mismatch does not compile).",
    ],
    declarations: [
      {
        name: "HANDLERS",
        type: "ToolHandlers",
        initializer: `{\n${ctx.tools.map((t) => `${t.name}: ${t.name}${HANDLER_SUFFIX}`).join(",\n")}\n}`,
      },
    ],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ["Every tool, sorted by name."],
    declarations: [
      {
        name: "TOOLS",
        type: "readonly RegisteredTool[]",
        initializer: `Object.freeze([\n${ctx.tools
          .map((t) => `register(${metaLiteral(t)}, HANDLERS.${t.name})`)
          .join(",\n")}\n])`,
      },
    ],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ["Tools by name."],
    declarations: [
      {
        name: "TOOLS_BY_NAME",
        type: "ReadonlyMap<string, RegisteredTool>",
        initializer: "new Map(TOOLS.map((t) => [t.name, t]))",
      },
    ],
  });
  const withResult = ctx.tools.filter((t) => t.result);
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [
      "JSON Schema of the worker's result of each review or queued tool (`data.result` of get_job_status).",
    ],
    declarations: [
      {
        name: "RESULT_SCHEMAS",
        type: "ReadonlyMap<string, Record<string, unknown>>",
        initializer: `new Map<string, Record<string, unknown>>([\n${withResult
          .map((t) => `[${literal(t.name)}, ${literal(t.result)}]`)
          .join(",\n")}\n])`,
      },
    ],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ["Compiled validators of RESULT_SCHEMAS."],
    declarations: [
      {
        name: "RESULT_VALIDATORS",
        type: "ReadonlyMap<string, Validator>",
        initializer: "new Map([...RESULT_SCHEMAS].map(([name, schema]) => [name, validator(schema)]))",
      },
    ],
  });
  return file.getFullText();
}
