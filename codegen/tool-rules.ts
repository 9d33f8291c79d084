/**
 * Semantic rules for one tool of tools.yaml (docs/tools-yaml.md, DESIGN.md section 2), applied after the
 * structural check: scope known, hints consistent with access, idempotency key on every mutation, flags
 * consistent, `result` where the work runs later, schemas closed and bounded, `example` valid, a view URI
 * (`_meta.ui.resourceUri`) that names a view.
 */
import { Compile } from "typebox/compile";
import { viewByUri } from "../src/mcp/views/catalog.ts";
import { isScope } from "../src/scopes.ts";
import { type Issue, isRecord, pathOf, type Segment, schemaErrorsToIssues } from "./issues.ts";
import { checkSchema } from "./schema-rules.ts";
import type { ToolSpec } from "./spec.ts";

/** True for tools that delete something: budget `delete` or a `delete_` name. */
export function isDeleteTool(tool: Pick<ToolSpec, "name" | "budget">): boolean {
  return tool.budget === "delete" || tool.name.startsWith("delete_");
}

/**
 * Checks one structurally valid tool.
 * @param index its position in tools.yaml (paths say `tools[index]`).
 * @returns every violation, in a stable order.
 */
export function checkTool(tool: ToolSpec, index: number): Issue[] {
  const at: Segment[] = ["tools", index];
  const issues: Issue[] = [];
  const add = (segments: readonly Segment[], message: string) =>
    issues.push({ path: pathOf([...at, ...segments]), message });

  if (!isScope(tool.scope)) add(["scope"], `unknown scope ${JSON.stringify(tool.scope)} (see src/scopes.ts)`);

  if (tool.access === "read") {
    if (!tool.annotations.readOnlyHint) add(["annotations", "readOnlyHint"], "must be true for a read tool");
    if (tool.review) add(["review"], "a read tool cannot need browser approval");
    if (tool.queued) add(["queued"], "a read tool cannot be queued");
  } else {
    if (tool.annotations.readOnlyHint) add(["annotations", "readOnlyHint"], "must be false for a write tool");
    checkIdempotencyKey(tool.input, add);
  }
  if (isDeleteTool(tool) && !tool.annotations.destructiveHint)
    add(["annotations", "destructiveHint"], "must be true for a delete tool");

  if (tool.review && tool.queued) add(["queued"], "review and queued cannot both be true");
  if ((tool.review || tool.queued) && tool.result === undefined)
    add(["result"], "is required for review and queued tools (the worker's result)");
  if (!tool.review && !tool.queued && tool.result !== undefined && tool.access !== "write")
    add(["result"], "only review, queued and deferrable (inline write) tools have a result");
  if (!tool.review && tool.output === undefined)
    add(["output"], "is required for inline and queued tools (the envelope's data)");

  for (const key of ["input", "output", "result"] as const) {
    const schema = tool[key];
    if (schema === undefined) continue;
    if (schema.type !== "object") add([key, "type"], 'must be "object" at the root');
    issues.push(...checkSchema(schema, [...at, key]));
  }
  const view = tool._meta?.ui.resourceUri;
  if (view !== undefined && !viewByUri(view))
    add(
      ["_meta", "ui", "resourceUri"],
      `names no view of src/mcp/views/catalog.ts (${JSON.stringify(view)})`,
    );
  issues.push(...checkExample(tool, at));
  return issues;
}

function checkIdempotencyKey(input: Record<string, unknown>, add: (s: Segment[], m: string) => void): void {
  const props = isRecord(input.properties) ? input.properties : {};
  const key = props.idempotency_key;
  if (!isRecord(key)) {
    add(
      ["input", "properties", "idempotency_key"],
      "is required on every write tool ({type: string, format: uuid})",
    );
    return;
  }
  if (key.type !== "string" || key.format !== "uuid")
    add(["input", "properties", "idempotency_key"], "must be {type: string, format: uuid}");
  if (!Array.isArray(input.required) || !input.required.includes("idempotency_key"))
    add(["input", "required"], "must include idempotency_key");
}

/** The example must be valid arguments: it is what the guide tells agents to send. */
function checkExample(tool: ToolSpec, at: Segment[]): Issue[] {
  let validator: ReturnType<typeof Compile>;
  try {
    validator = Compile(tool.input);
  } catch (err) {
    return [{ path: pathOf([...at, "input"]), message: `does not compile: ${(err as Error).message}` }];
  }
  if (validator.Check(tool.example)) return [];
  return schemaErrorsToIssues(validator.Errors(tool.example), tool.example, [...at, "example"], "example: ");
}
