/**
 * Step 1 of codegen: parse tools.yaml, expand its shared definitions (definitions.ts) and validate it
 * (structure with TypeBox, then the semantic rules).
 * Pure: text in, validated tools out, or a CodegenError listing every bad field with its path.
 */
import { Settings } from "typebox/system";
import { Value } from "typebox/value";
import { parseDocument } from "yaml";
import { DefinitionExpander } from "./definitions.ts";
import { CodegenError, type Issue, isRecord, schemaErrorsToIssues } from "./issues.ts";
import { type ToolSpec, ToolSpecSchema, type ToolsFile, ToolsFileSchema } from "./spec.ts";
import { checkTool } from "./tool-rules.ts";

/** Runs `fn` with TypeBox collecting all errors instead of its default 8. */
function withAllErrors<T>(fn: () => T): T {
  const previous = Settings.Get().maxErrors;
  Settings.Set({ maxErrors: 10_000 });
  try {
    return fn();
  } finally {
    Settings.Set({ maxErrors: previous });
  }
}

/**
 * Parses and validates tools.yaml.
 * @param text the file's content.
 * @returns the tools, in file order.
 * @throws CodegenError with every issue found (YAML syntax, structure, rules, duplicate names).
 */
export function loadTools(text: string): ToolsFile {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new CodegenError(
      doc.errors.map((e) => ({
        path: "",
        message: `YAML ${e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : "error"}: ${(e.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "")}`,
      })),
    );
  }
  const raw: unknown = doc.toJS();
  return withAllErrors(() => validate(raw));
}

function validate(raw: unknown): ToolsFile {
  if (!isRecord(raw))
    throw new CodegenError([{ path: "", message: "must be a mapping with version and tools" }]);
  const issues: Issue[] = schemaErrorsToIssues(Value.Errors(ToolsFileSchema, raw), raw, []);
  const definitions = new DefinitionExpander(isRecord(raw.definitions) ? raw.definitions : {});
  const list = (Array.isArray(raw.tools) ? raw.tools : []).map((tool: unknown, i) => {
    if (!isRecord(tool)) return tool;
    const out: Record<string, unknown> = { ...tool };
    for (const key of ["input", "output", "result"] as const)
      if (key in tool) out[key] = definitions.expand(tool[key], ["tools", i, key]);
    return out;
  });
  issues.push(...definitions.issues, ...definitions.unused());
  if (definitions.issues.length > 0) throw new CodegenError(issues);
  const firstIndex = new Map<string, number>();
  list.forEach((tool: unknown, i) => {
    const structural = schemaErrorsToIssues(Value.Errors(ToolSpecSchema, tool), tool, ["tools", i]);
    issues.push(...structural);
    if (isRecord(tool) && typeof tool.name === "string") {
      const first = firstIndex.get(tool.name);
      if (first === undefined) firstIndex.set(tool.name, i);
      else
        issues.push({
          path: `tools[${i}].name`,
          message: `duplicate of tools[${first}].name (${tool.name})`,
        });
    }
    if (structural.length === 0) issues.push(...checkTool(tool as ToolSpec, i));
  });
  if (issues.length > 0) throw new CodegenError(issues);
  return { version: 1, tools: list as ToolSpec[] };
}
