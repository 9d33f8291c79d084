/**
 * Compiles a JSON Schema into a runtime `Validator` for in-test tools, the same way generated/registry.ts
 * does for the catalog (TypeBox `Compile` once; issues in the TypeBox/Ajv shape).
 */
import { Compile } from "typebox/compile";
import type { SchemaIssue, Validator } from "../../src/tool-contract.ts";

export function validator(schema: Record<string, unknown>): Validator {
  const compiled = Compile(schema as never);
  return (value) =>
    compiled.Check(value)
      ? []
      : compiled.Errors(value).map(
          (e): SchemaIssue => ({
            keyword: e.keyword,
            instancePath: e.instancePath,
            schemaPath: e.schemaPath,
            params: { ...e.params },
            message: e.message,
          }),
        );
}
