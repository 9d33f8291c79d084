/**
 * Emits a typed handler stub `src/tools/<group>/<name>.ts` (DESIGN.md section 2). Written only when the file
 * does not exist; from then on it is hand-written code that codegen never touches. The stub's members follow
 * the flags (generated/tool-types.ts ToolHandlers): inline tools `execute`; review tools `describe` + `execute`
 * (returning the result); queued tools `accept` (returning the output) + `execute` (returning the result).
 */
import type { ResolvedTool } from "../context.ts";

/** @returns the unformatted source of the stub for `tool`. */
export function emitStub(tool: ResolvedTool): string {
  const notYet = `throw new ToolError("internal_error", "${tool.name} is not implemented yet");`;
  const members: string[] = [];
  if (tool.review) members.push(`async describe() {\n${notYet}\n},`);
  if (tool.queued) members.push(`async accept() {\n${notYet}\n},`);
  members.push(`async execute() {\n${notYet}\n},`);
  return `/**
 * Handler of \`${tool.name}\`: ${tool.title}.
 * Stub written once by codegen from tools.yaml; this file is now hand-written code, codegen never overwrites it.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ToolError } from "../../errors.ts";

export const handler: ToolHandlers["${tool.name}"] = {
${members.join("\n")}
};
`;
}
