/**
 * Emits a typed handler stub `src/tools/<group>/<name>.ts` (DESIGN.md section 2). Written only when the file
 * does not exist; from then on it is hand-written code that codegen never touches. The stub's members follow
 * the flags (src/tool-contract.ts ToolHandler): inline tools `execute`; review tools `describe` + `execute`
 * (returning the result); queued tools `accept` (returning the output) + `execute` (returning the result).
 */
import type { ResolvedTool } from "../context.ts";

function handlerType(tool: ResolvedTool): { type: string; imports: string[] } {
  const i = `ToolInputs["${tool.name}"]`;
  if (tool.queued)
    return {
      type: `ToolHandler<${i}, ToolResults["${tool.name}"], ToolOutputs["${tool.name}"]>`,
      imports: ["ToolInputs", "ToolOutputs", "ToolResults"],
    };
  if (tool.review)
    return { type: `ToolHandler<${i}, ToolResults["${tool.name}"]>`, imports: ["ToolInputs", "ToolResults"] };
  return { type: `ToolHandler<${i}, ToolOutputs["${tool.name}"]>`, imports: ["ToolInputs", "ToolOutputs"] };
}

/** @returns the unformatted source of the stub for `tool`. */
export function emitStub(tool: ResolvedTool): string {
  const { type, imports } = handlerType(tool);
  const notYet = `throw new ToolError("internal_error", "${tool.name} is not implemented yet");`;
  const members: string[] = [];
  if (tool.review) members.push(`async describe() {\n${notYet}\n},`);
  if (tool.queued) members.push(`async accept() {\n${notYet}\n},`);
  members.push(`async execute() {\n${notYet}\n},`);
  return `/**
 * Handler of \`${tool.name}\`: ${tool.title}.
 * Stub written once by codegen from tools.yaml; this file is now hand-written code, codegen never overwrites it.
 */
import type { ${imports.join(", ")} } from "../../../generated/tool-types.ts";
import { ToolError } from "../../errors.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ${type} = {
${members.join("\n")}
};
`;
}
