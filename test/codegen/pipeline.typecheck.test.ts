/**
 * What codegen generates for the fixture type-checks under the repository's strict tsconfig (the TypeScript
 * compiler over generated/ and the stubs, as `tsc --noEmit`, in this process), and the generated registry
 * works when imported.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import type { RegisteredTool } from "../../src/tool-contract.ts";
import { generatedProject, typeErrors } from "./fixture.ts";

test("tsc --noEmit passes over the generated registry, types and stubs", async () => {
  const root = await generatedProject();
  assert.deepEqual(typeErrors(root), []);
});

test("the registry refuses, at compile time, handlers that do not match tools.yaml", async () => {
  const root = await generatedProject();
  // Written without a type annotation, so that the only check is the registry's `HANDLERS: ToolHandlers`.
  await writeFile(
    path.join(root, "src/tools/products/list_products.ts"),
    'export const handler = { async execute() { return { data: { items: "not an array", next_cursor: null } }; } };\n',
  );
  await writeFile(
    path.join(root, "src/tools/content/delete_post.ts"),
    "export const handler = { async execute() { return { data: { post_id: 'x', deleted: true as const } }; } };\n",
  );
  // The registry's own diagnostics: the compiler checks what it needs of the handlers for them.
  const errors = typeErrors(root, ["generated/registry.ts"]);
  assert.notEqual(errors.length, 0, "the compiler accepted mismatching handlers");
  assert.ok(
    errors.every((l) => l.startsWith("generated/registry.ts(")),
    `only the registry's errors:\n${errors.join("\n")}`,
  );
  assert.equal(errors.length, 2, `one error per bad handler:\n${errors.join("\n")}`);
  assert.ok(errors.join("\n").includes("describe"), "a review tool without describe is refused");
});

test("the generated registry binds the stubs and validates with compiled schemas", async () => {
  const root = await generatedProject();
  const mod = (await import(pathToFileURL(path.join(root, "generated/registry.ts")).href)) as {
    TOOLS: readonly RegisteredTool[];
    TOOLS_BY_NAME: ReadonlyMap<string, RegisteredTool>;
    RESULT_VALIDATORS: ReadonlyMap<string, (v: unknown) => unknown[]>;
  };
  assert.deepEqual(
    mod.TOOLS.map((t) => t.name),
    ["delete_post", "generate_carousel", "list_products"],
  );
  assert.ok(Object.isFrozen(mod.TOOLS));
  const list = mod.TOOLS_BY_NAME.get("list_products");
  assert.ok(list);
  assert.deepEqual(list.validateInput({ limit: 5 }), []);
  const issues = list.validateInput({ limit: 500, extra: true });
  assert.ok(issues.some((i) => i.keyword === "maximum" && i.instancePath === "/limit"));
  assert.ok(issues.some((i) => i.instancePath === "/extra"));
  const envelope = {
    request_id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
    status: "succeeded",
    data: { items: [], next_cursor: null },
  };
  assert.deepEqual(list.validateOutput(envelope), []);
  assert.notDeepEqual(list.validateOutput({ ...envelope, status: "done" }), []);
  assert.notDeepEqual(list.validateOutput({ ...envelope, data: { items: [] } }), []);

  assert.deepEqual([...mod.RESULT_VALIDATORS.keys()], ["delete_post", "generate_carousel"]);
  const carousel = mod.TOOLS_BY_NAME.get("generate_carousel");
  assert.equal(typeof carousel?.handler.accept, "function");
  assert.equal(typeof mod.TOOLS_BY_NAME.get("delete_post")?.handler.describe, "function");
  await assert.rejects(
    () => list.handler.execute({}, {} as never),
    (err: Error & { code?: string }) => err.name === "ToolError" && err.code === "internal_error",
  );
});
